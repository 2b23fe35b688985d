import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id.js';

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('makes RFC 9562 version 7 UUIDs that carry the millisecond they were made in', () => {
    const at = Date.UTC(2026, 11, 2, 9, 30);
    const id = timeOrderedId(at);
    expect(id).toMatch(uuidV7);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts ids in the order they were made, within one millisecond and across many', () => {
    const ids = Array.from({ length: 20_000 }, (_, index) =>
      timeOrderedId(1_800_000_000_000 + Math.floor(index / 5000)),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(uuidV7);
  });

  it('keeps counting up when the clock steps back', () => {
    const later = timeOrderedId(1_900_000_000_000);
    const earlier = timeOrderedId(1_899_999_999_000);
    expect(earlier > later).toBe(true);
  });

  it('varies in its random bits', () => {
    const tails = new Set(Array.from({ length: 1000 }, () => timeOrderedId().slice(19)));
    expect(tails.size).toBe(1000);
  });
});
