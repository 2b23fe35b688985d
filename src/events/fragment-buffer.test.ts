import { describe, expect, it } from 'vitest';
import { FragmentBuffer } from './fragment-buffer.js';

const fragments = (count: number, prefix = '') =>
  Array.from({ length: count }, (_unused, index) => `${prefix}${index},`);

describe('FragmentBuffer', () => {
  it('joins what was appended in order when the count ends on, just before or just after a block boundary', () => {
    // Blocks hold 64, then 128, then 256 fragments, … up to 4,096 (after 8,128 in all), then 4,096 each.
    for (const count of [0, 1, 63, 64, 65, 191, 192, 193, 448, 449, 8127, 8128, 8129, 12_224, 12_225]) {
      const buffer = new FragmentBuffer();
      const appended = fragments(count);
      for (const fragment of appended) buffer.append(fragment);
      expect(buffer.size).toBe(count);
      expect(buffer.take()).toBe(appended.join(''));
    }
  });

  it('keeps every buffer apart: what one appends never shows in another, new, taken, cleared or sealed', () => {
    const first = new FragmentBuffer();
    for (const fragment of fragments(3, 'a')) first.append(fragment);
    const second = new FragmentBuffer();
    expect(second.size).toBe(0);
    expect(second.take()).toBe('');
    second.append('b');
    expect(first.take()).toBe('a0,a1,a2,');
    first.append('c');
    first.clear();
    const third = new FragmentBuffer();
    third.append('d');
    // appendAll seals the open block of the buffer it appends to, which then opens a new one.
    third.appendAll(second);
    third.append('e');
    expect(first.size).toBe(0);
    expect(first.take()).toBe('');
    expect(second.take()).toBe('b');
    expect(third.take()).toBe('dbe');
    first.append('f');
    expect(first.take()).toBe('f');
  });

  it('starts over after take: the next fragments fill blocks from the first size again, in order', () => {
    const buffer = new FragmentBuffer();
    for (const fragment of fragments(200, 'x')) buffer.append(fragment);
    expect(buffer.take()).toBe(fragments(200, 'x').join(''));
    const next = fragments(130, 'y');
    for (const fragment of next) buffer.append(fragment);
    expect(buffer.size).toBe(130);
    expect(buffer.take()).toBe(next.join(''));
  });
});
