/**
 * The innermost cause's code or message of a failed request, e.g.
 * `ECONNREFUSED` or `other side closed` (looked for four causes deep):
 * what a model error names when the endpoint could not be reached.
 *
 * @example
 * connectionDetail(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })); // 'ECONNREFUSED'
 */
export function connectionDetail(error: unknown): string | undefined {
  let current: unknown = error;
  let detail: string | undefined;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    if ('code' in current && typeof current.code === 'string') detail = current.code;
    else if ('message' in current && typeof current.message === 'string' && current.message !== '') {
      detail = current.message;
    }
    current = 'cause' in current ? current.cause : undefined;
  }
  return detail;
}
