import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunSessionEnds } from './run-session-ends.js';

const request = (runId: string) => ({ sessionId: `s-${runId}`, runId, status: 'idle' as const, lastSeq: 9 });

describe('RunSessionEnds', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands an offered end to the terminal batch, and tells the caller once that batch committed', async () => {
    const ends = new RunSessionEnds();
    const offer = ends.offer(request('r1'));
    const settled = offer?.settle();
    expect(ends.take('r1')).toEqual(request('r1'));
    // Taken once: a retried batch does not write it again.
    expect(ends.take('r1')).toBeUndefined();
    ends.settled(['r1'], true);
    expect(await settled).toBe(true);
  });

  it('answers false when the batch that took the end failed: the caller writes it', async () => {
    const ends = new RunSessionEnds();
    const settled = ends.offer(request('r1'))?.settle();
    ends.take('r1');
    ends.settled(['r1'], false);
    expect(await settled).toBe(false);
  });

  it('withdraws an end no batch took within 2 s, so that no batch writes it after the caller did', async () => {
    vi.useFakeTimers();
    const ends = new RunSessionEnds();
    const settled = ends.offer(request('r1'))?.settle();
    await vi.advanceTimersByTimeAsync(2000);
    expect(await settled).toBe(false);
    expect(ends.take('r1')).toBeUndefined();
  });

  it('refuses an offer whose terminal batch was written without it, once', () => {
    const ends = new RunSessionEnds();
    expect(ends.take('r1')).toBeUndefined();
    expect(ends.offer(request('r1'))).toBeUndefined();
    // A resumed run's next end may be offered.
    expect(ends.offer(request('r1'))).toBeDefined();
  });
});
