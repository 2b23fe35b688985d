/** The text that replaces a sensitive value wherever it leaves the live conversation. */
export const redactedMarker = '[redacted]';

/**
 * A copy of `value` with the value of every key named in `sensitive`, at any
 * depth, replaced by `[redacted]`.
 *
 * @example
 * redact({ phone: '+86 138', order: { address: 'x', id: 1 } }, ['phone', 'address']);
 * // { phone: '[redacted]', order: { address: '[redacted]', id: 1 } }
 */
export function redact(value: unknown, sensitive: readonly string[]): unknown {
  if (sensitive.length === 0) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, sensitive));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, key, {
      value: sensitive.includes(key) ? redactedMarker : redact(item, sensitive),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
