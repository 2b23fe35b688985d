import { ArbiterError } from '@arbiter-runtime/core';

const marker = 'arbiter.example.shop.usage';
const symbol = Symbol.for(marker);

/**
 * The shop example asked for something it cannot do: a demo session that
 * is not stored, a toolkit option it does not know. The CLI prints an
 * `ArbiterError`'s message as it is and exits 2.
 *
 * @example
 * throw new ShopUsageError({ message: 'no session s-1 in .arbiter/arbiter.db' });
 */
export class ShopUsageError extends ArbiterError {
  readonly code = 'shop_usage' as const;
  readonly [symbol] = true;

  constructor({ message }: { message: string }) {
    super(message);
  }

  static override isInstance(value: unknown): value is ShopUsageError {
    return ArbiterError.hasMarker(value, marker);
  }
}
