import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './wilson-interval.js';

describe('wilsonInterval', () => {
  it('matches the published 95% Wilson score intervals', () => {
    const eight = wilsonInterval({ successes: 8, total: 10 });
    expect(eight.low).toBeCloseTo(0.4902, 4);
    expect(eight.high).toBeCloseTo(0.9433, 4);
    const none = wilsonInterval({ successes: 0, total: 74 });
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.0493, 4);
  });

  it('is [0, 1] without trials', () => {
    expect(wilsonInterval({ successes: 0, total: 0 })).toEqual({ low: 0, high: 1 });
  });
});
