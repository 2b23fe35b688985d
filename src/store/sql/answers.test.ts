import { describe, expect, it } from 'vitest';
import { chainAnswer, mapAnswer, recoverAnswer } from './answers.js';

describe('answers of either port', () => {
  it('go on at once with a value, so a synchronous answer stays synchronous', () => {
    expect(mapAnswer<'sync', number, number>(2, (value) => value + 1)).toBe(3);
    expect(chainAnswer<'sync', number, string>(2, (value) => `${value}`)).toBe('2');
    expect(
      recoverAnswer<'sync', string>(
        () => {
          throw new Error('no such table: audit_chain_origin');
        },
        (error) => (error as Error).message,
      ),
    ).toBe('no such table: audit_chain_origin');
  });

  it('go on after a promise settles, one promise deep, and recover from a rejection', async () => {
    const chained = chainAnswer<'async', number, number>(Promise.resolve(2), async (value) => value * 10);
    expect(chained).toBeInstanceOf(Promise);
    expect(await chained).toBe(20);
    expect(await mapAnswer<'async', number, number>(Promise.resolve(2), (value) => value + 1)).toBe(3);
    expect(
      await recoverAnswer<'async', string>(
        () => Promise.reject(Object.assign(new Error('missing'), { code: '42P01' })),
        (error) => (error as { code: string }).code,
      ),
    ).toBe('42P01');
  });
});
