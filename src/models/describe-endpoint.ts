/**
 * A base URL as messages may show it: origin and path, without user info,
 * query, fragment or trailing slash (any of which may carry a secret).
 *
 * @example
 * describeEndpoint('https://user:secret@api.example.com/v1/?key=x'); // 'https://api.example.com/v1'
 */
export function describeEndpoint(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}
