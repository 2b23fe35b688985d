import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.server_config';
const symbol = Symbol.for(marker);

/**
 * A server configuration that would be unsafe or cannot work: the demo
 * tokens on a public address, a bearer token too short to resist guessing,
 * gate rules given next to a gate of one's own. Raised before the server
 * listens, never while it serves.
 *
 * @example
 * throw new ServerConfigError({ setting: 'host', message: 'demo mode listens on loopback only, not 0.0.0.0' });
 */
export class ServerConfigError extends ArbiterError {
  readonly code = 'server_config_invalid' as const;
  readonly [symbol] = true;
  /** The option at fault, e.g. `host`, `auth`, `metricsToken`, `gateRules`. */
  readonly setting: string;

  constructor({ setting, message, cause }: { setting: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.setting = setting;
  }

  static override isInstance(error: unknown): error is ServerConfigError {
    return ArbiterError.hasMarker(error, marker);
  }
}
