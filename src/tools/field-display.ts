import { redactedMarker } from '../util/redact.js';

/**
 * How a person should read one argument field on an approval card, the
 * desk and the audit: the model still sees and sends the raw value.
 *
 * - `money`: an amount of `currency` (ISO 4217, e.g. `CNY`), counted in the
 *   currency's minor unit (cents, fen) unless `unit` is `major`:
 *   `amount_cents: 20000` reads "200.00 CNY" (en) and "¥200.00" (zh-CN);
 * - `date`: a calendar day (`2026-12-06`), read with the month's name;
 * - `datetime`: an instant (ISO 8601 or milliseconds since the epoch), read
 *   with the month's name, the time and the time zone.
 *
 * @example
 * const display: Record<string, FieldDisplay> = {
 *   amount_cents: { kind: 'money', currency: 'CNY' },
 *   delivered_on: { kind: 'date' },
 * };
 */
export type FieldDisplay =
  | {
      readonly kind: 'money';
      /** ISO 4217 code, upper case: `CNY`, `EUR`, `JPY`. */
      readonly currency: string;
      /** `minor` (default): the value counts cents (fen, pence); `major`: whole units. */
      readonly unit?: 'minor' | 'major';
    }
  | { readonly kind: 'date' }
  | { readonly kind: 'datetime' };

/**
 * What is wrong with a tool's `display` declaration, one sentence per
 * field, or an empty list: a currency that is not an ISO 4217 code, a kind
 * nobody knows.
 *
 * @example
 * fieldDisplayProblems({ amount_cents: { kind: 'money', currency: 'yuan' } });
 * // ['display of "amount_cents": currency "yuan" is not an ISO 4217 code such as "CNY"']
 */
export function fieldDisplayProblems(display: Readonly<Record<string, FieldDisplay>>): string[] {
  const problems: string[] = [];
  for (const [field, entry] of Object.entries(display)) {
    const kind: unknown = (entry as { kind?: unknown } | null)?.kind;
    if (kind === 'money') {
      const { currency, unit } = entry as { currency?: unknown; unit?: unknown };
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
        problems.push(
          `display of "${field}": currency ${JSON.stringify(currency)} is not an ISO 4217 code such as "CNY"`,
        );
      }
      if (unit !== undefined && unit !== 'minor' && unit !== 'major') {
        problems.push(`display of "${field}": unit must be "minor" or "major", not ${JSON.stringify(unit)}`);
      }
    } else if (kind !== 'date' && kind !== 'datetime') {
      problems.push(`display of "${field}": kind must be "money", "date" or "datetime", not ${JSON.stringify(kind)}`);
    }
  }
  return problems;
}

/**
 * The entries of `display` for the fields a person is shown in `shown`
 * (arguments as `displayArguments` left them): a redacted or removed field
 * keeps its raw look, `[redacted]`.
 *
 * @example
 * shownFieldDisplays({ display: tool.display, shown: { order_id: 'SO1', amount_cents: 20000 } });
 * // { amount_cents: { kind: 'money', currency: 'CNY' } }
 */
export function shownFieldDisplays({
  display,
  shown,
}: {
  display: Readonly<Record<string, FieldDisplay>> | undefined;
  shown: Readonly<Record<string, unknown>>;
}): Record<string, FieldDisplay> {
  const entries: Record<string, FieldDisplay> = {};
  for (const [field, entry] of Object.entries(display ?? {})) {
    if (Object.hasOwn(shown, field) && shown[field] !== redactedMarker) entries[field] = entry;
  }
  return entries;
}
