import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FragmentBuffer } from './fragment-buffer.js';

function filled(fragments: readonly string[]): FragmentBuffer {
  const buffer = new FragmentBuffer();
  for (const fragment of fragments) buffer.append(fragment);
  return buffer;
}

describe('FragmentBuffer', () => {
  it('joins what it holds in order, from any fragment on, and is empty after take', () => {
    const buffer = filled(['Hel', 'lo', ', ', 'world']);
    expect(buffer.size).toBe(4);
    expect(buffer.textFrom(0)).toBe('Hello, world');
    expect(buffer.textFrom(2)).toBe(', world');
    expect(buffer.textFrom(4)).toBe('');
    expect(buffer.take()).toBe('Hello, world');
    expect(buffer.size).toBe(0);
    expect(buffer.take()).toBe('');
  });

  it('keeps every fragment across block boundaries (64, 128, … 8,192 slots, then 8,192 each)', () => {
    const fragments = Array.from({ length: 40_000 }, (_unused, index) => `${index},`);
    const buffer = filled(fragments);
    expect(buffer.size).toBe(fragments.length);
    for (const start of [0, 1, 63, 64, 65, 191, 192, 16_319, 16_320, 24_511, 24_512, 39_999, 40_000]) {
      expect(buffer.textFrom(start)).toBe(fragments.slice(start).join(''));
    }
    expect(buffer.take()).toBe(fragments.join(''));
    buffer.append('again');
    expect(buffer.take()).toBe('again');
  });

  it('reads back exactly the concatenation of what was appended, from any start', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 400, size: 'medium' }),
        fc.nat(),
        (fragments, startSeed) => {
          const buffer = filled(fragments);
          const start = startSeed % (fragments.length + 1);
          expect(buffer.textFrom(start)).toBe(fragments.slice(start).join(''));
          expect(buffer.take()).toBe(fragments.join(''));
          expect(buffer.size).toBe(0);
        },
      ),
    );
  });
});
