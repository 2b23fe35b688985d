import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.configuration';
const symbol = Symbol.for(marker);

/**
 * Options that cannot work together, found before (or as soon as) they are
 * used: a cost budget without a price table, or a model the price table
 * does not price. Not a model failure: no retry can help, the options must
 * change.
 *
 * @example
 * throw new ConfigurationError({ setting: 'limits.costBudget', message: 'limits.costBudget needs a price table (the prices option)' });
 */
export class ConfigurationError extends ArbiterError {
  readonly code = 'configuration_invalid' as const;
  readonly [symbol] = true;
  /** The option at fault, e.g. `limits.costBudget`. */
  readonly setting: string;

  constructor({ setting, message, cause }: { setting: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.setting = setting;
  }

  static override isInstance(error: unknown): error is ConfigurationError {
    return ArbiterError.hasMarker(error, marker);
  }
}
