const marker = Symbol.for('arbiter.error');

/**
 * Base class of every error arbiter throws. Each subclass carries a
 * string-literal `code` a caller can switch on, and typed context fields.
 *
 * @example
 * try { registry.register(tool) } catch (error) {
 *   if (ArbiterError.isInstance(error)) console.error(error.code, error.message);
 * }
 */
export abstract class ArbiterError extends Error {
  abstract readonly code: string;
  readonly [marker] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /** True for any arbiter error, also across copies of the package. */
  static isInstance(value: unknown): value is ArbiterError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
