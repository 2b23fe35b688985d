/**
 * One JSON request to a running server with a bearer token: the status and
 * the parsed body (`{}` when empty), for tests that talk to real nodes.
 *
 * @example
 * const { status, body } = await requestJson(node.url, '/v1/sessions', { token, method: 'POST' });
 */
export async function requestJson(
  baseUrl: string,
  path: string,
  { token, method = 'GET', body }: { token: string; method?: string; body?: unknown },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}
