import { A2aConnectionError } from './a2a-connection-error.js';

/** Redirects of a card's GET followed at most; a call's POST follows none. */
const maxRedirects = 5;

/**
 * The `fetch` an A2A agent's card and calls go through: it adds `headers`
 * (the configured ones and the bearer) and sends a request only to one of
 * `origins` (the card URL's own and the entry's `allowedOrigins`). Redirects
 * are not left to `fetch`: a GET (the card) follows one only to an allowed
 * origin, a call (a POST carrying the user's message) follows none. Any
 * other request rejects with `A2aConnectionError` before it is sent, so the
 * credentials and messages never leave the origins the config names.
 *
 * @example
 * const guarded = a2aOriginFetch({ agent: 'billing', origins: new Set(['https://billing.example.com']), headers: { Authorization: 'Bearer …' } });
 */
export function a2aOriginFetch({
  agent,
  origins,
  headers,
  fetchImpl = fetch,
}: {
  agent: string;
  origins: ReadonlySet<string>;
  headers: Readonly<Record<string, string>>;
  fetchImpl?: typeof fetch;
}): typeof fetch {
  const refuse = (url: URL, why: string): never => {
    throw new A2aConnectionError({
      agent,
      message: `A2A agent "${agent}": a request to ${url.origin} was not sent (${why}); its requests go only to ${[...origins].join(', ')} (the card's origin and "allowedOrigins")`,
    });
  };
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : input);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const withHeaders = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of Object.entries(headers)) withHeaders.set(name, value);
    for (let redirects = 0; ; redirects += 1) {
      if (!origins.has(url.origin)) refuse(url, redirects === 0 ? 'another origin' : 'a redirect to another origin');
      const response = await fetchImpl(url, { ...init, method, headers: withHeaders, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      await response.body?.cancel();
      const next = new URL(location, url);
      if (method !== 'GET') refuse(next, `the ${method} was answered with a redirect, which is not followed`);
      if (redirects >= maxRedirects) refuse(next, `more than ${maxRedirects} redirects`);
      url = next;
    }
  };
}
