import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { argumentsHash, sha256Hex } from './sha256.js';

describe('sha256Hex', () => {
  it('is the sha256 of the text as UTF-8, hex, as createHash gives it', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const text of ['', 'Zürich → 東京 🚀', '{"a":1}'.repeat(1_000)]) {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });

  it('of canonical JSON is argumentsHash', () => {
    const args = { b: [{ d: 2, c: 3 }], a: 'x' };
    expect(sha256Hex(canonicalJson(args))).toBe(argumentsHash({ a: 'x', b: [{ c: 3, d: 2 }] }));
  });
});
