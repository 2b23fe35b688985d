/**
 * True for a JSON object (not null, not an array): what a parsed body, a
 * schema node or a third party's result must be before its fields are read.
 *
 * @example
 * if (!isRecord(body)) return refuse('the body is not an object');
 * const name = body['name'];
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
