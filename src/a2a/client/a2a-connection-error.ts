import { ArbiterError } from '../../errors/arbiter-error.js';

const marker = 'arbiter.error.a2a_connection';
const symbol = Symbol.for(marker);

/**
 * An A2A agent could not be reached: its Agent Card could not be read, or a
 * call failed on the way (refused, an HTTP or JSON-RPC error, a stream cut
 * off). For the operator, never the model: the agent may have acted, so a
 * run whose call fails this way ends with `run:error`, its idempotency key
 * still claimed.
 *
 * @example
 * throw new A2aConnectionError({ agent: 'billing', message: 'A2A agent "billing": its Agent Card could not be read: …' });
 */
export class A2aConnectionError extends ArbiterError {
  readonly code = 'a2a_connection_failed' as const;
  readonly [symbol] = true;
  /** The agent's name in the config. */
  readonly agent: string;

  constructor({ agent, message, cause }: { agent: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.agent = agent;
  }

  static override isInstance(error: unknown): error is A2aConnectionError {
    return ArbiterError.hasMarker(error, marker);
  }
}
