import { isIPv4, isIPv6 } from 'node:net';

/**
 * @module
 * What counts as "this machine only" for the demo mode, whose tokens are
 * public: where the server may listen, and which `Host` headers it answers.
 */

/**
 * Whether a listen address reaches this machine only: `localhost`, any
 * address in 127.0.0.0/8, `::1` (also IPv4-mapped, `::ffff:127.0.0.1`).
 * `0.0.0.0`, `::` and every other address are not.
 *
 * @example
 * isLoopbackAddress('127.0.0.1'); // true
 * isLoopbackAddress('0.0.0.0'); // false
 */
export function isLoopbackAddress(host: string): boolean {
  const address = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (address === 'localhost') return true;
  if (isIPv4(address)) return address.startsWith('127.');
  if (isIPv6(address)) {
    if (address === '::1' || address === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
    return mapped !== undefined && isIPv4(mapped) && mapped.startsWith('127.');
  }
  return false;
}

/**
 * Whether a request's `Host` header names this machine: exactly
 * `localhost`, `127.0.0.1` or `[::1]`, each with or without a port. A page
 * on another origin whose name was rebound to 127.0.0.1
 * (`localhost.evil.example`, `127.0.0.1.nip.io`) still sends its own name,
 * and is refused.
 *
 * @example
 * isLoopbackHostHeader('localhost:8787'); // true
 * isLoopbackHostHeader('127.0.0.1.nip.io:8787'); // false
 */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  return /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i.test(host.trim());
}
