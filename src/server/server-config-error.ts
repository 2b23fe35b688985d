import { ArbiterError } from '../errors/arbiter-error.js';

const marker = Symbol.for('arbiter.error.server_config');

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
  readonly [marker] = true;
  /** The option at fault, e.g. `host`, `auth`, `metricsToken`, `gateRules`. */
  readonly setting: string;

  constructor({ setting, message, cause }: { setting: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.setting = setting;
  }

  static override isInstance(value: unknown): value is ServerConfigError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
