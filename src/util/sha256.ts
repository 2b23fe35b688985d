import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * The sha256 (hex) of a value's canonical JSON: the identity of a set of
 * arguments, independent of key order.
 *
 * @example
 * argumentsHash({ b: 1, a: 2 }) === argumentsHash({ a: 2, b: 1 }); // true
 */
export function argumentsHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * The sha256 (hex) of a text, e.g. a bearer token compared by hash.
 *
 * @example
 * sha256Hex('abc'); // 'ba7816bf…'
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
