/**
 * Reads how long to wait before retrying from `retry-after-ms` (OpenAI's
 * extension) or `Retry-After` (seconds, or an HTTP date). Returns whole
 * milliseconds, never negative; undefined when absent or unreadable.
 *
 * @example
 * parseRetryAfter({ headers: new Headers({ 'retry-after': '2' }) }); // 2000
 */
export function parseRetryAfter({ headers, now = Date.now() }: { headers: Headers; now?: number }): number | undefined {
  const milliseconds = parseNumber(headers.get('retry-after-ms'));
  if (milliseconds !== undefined) return Math.ceil(milliseconds);

  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = parseNumber(value);
  if (seconds !== undefined) return Math.ceil(seconds * 1000);
  // An HTTP date names its weekday and month; Date.parse alone also accepts `-1`.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil(date - now));
}

function parseNumber(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}
