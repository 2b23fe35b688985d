const marker = 'arbiter.error';
const symbol = Symbol.for(marker);

/**
 * Base class of every error arbiter throws. Each subclass carries a
 * string-literal `code` a caller can switch on, and typed context fields.
 *
 * An error is recognised by a marker property (`Symbol.for('arbiter.error')`,
 * and one `Symbol.for('arbiter.error.<name>')` per subclass), not by
 * `instanceof`: an error thrown by a second copy of the package (two
 * versions in one `node_modules`) is still an arbiter error.
 *
 * @example
 * try { registry.register(tool) } catch (error) {
 *   if (ArbiterError.isInstance(error)) console.error(error.code, error.message);
 * }
 */
export abstract class ArbiterError extends Error {
  abstract readonly code: string;
  readonly [symbol] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /**
   * True for any arbiter error, also across copies of the package.
   *
   * @example
   * if (ArbiterError.isInstance(error)) console.error(error.code);
   */
  static isInstance(error: unknown): error is ArbiterError {
    return ArbiterError.hasMarker(error, marker);
  }

  /**
   * True when `error` carries the marker `Symbol.for(marker)`: the one check
   * every subclass's `isInstance` calls.
   */
  protected static hasMarker(error: unknown, marker: string): boolean {
    const symbol = Symbol.for(marker);
    return typeof error === 'object' && error !== null && symbol in error && Reflect.get(error, symbol) === true;
  }
}
