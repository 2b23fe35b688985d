import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors/model-error.js';
import { defaultModelSemaphore, ModelSemaphore } from './model-semaphore.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ModelSemaphore', () => {
  it('lets at most `limit` calls in and serves waiters first come, first served', async () => {
    const semaphore = new ModelSemaphore({ limit: 2 });
    const order: string[] = [];
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    const third = semaphore.acquire().then((release) => {
      order.push('third');
      return release;
    });
    const fourth = semaphore.acquire().then((release) => {
      order.push('fourth');
      return release;
    });
    await tick();
    expect([semaphore.inFlight, semaphore.waiting, order]).toEqual([2, 2, []]);

    first();
    first();
    await tick();
    expect([semaphore.inFlight, semaphore.waiting, order]).toEqual([2, 1, ['third']]);
    second();
    (await third)();
    (await fourth)();
    expect([semaphore.inFlight, order]).toEqual([0, ['third', 'fourth']]);
  });

  it('rejects a waiter with the signal reason when aborted, and takes no slot', async () => {
    const semaphore = new ModelSemaphore({ limit: 1 });
    const release = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire({ signal: controller.signal });
    controller.abort(new Error('run cancelled'));
    await expect(waiting).rejects.toThrow('run cancelled');
    expect(semaphore.waiting).toBe(0);
    release();
    expect(semaphore.inFlight).toBe(0);
    await expect(semaphore.acquire({ signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
  });

  it('halves the limit after a 429 for a while, never below 1, then restores it', async () => {
    let now = 0;
    const semaphore = new ModelSemaphore({ limit: 8, now: () => now });
    expect(semaphore.reduce({ forMs: 40 })).toBe(4);
    expect(semaphore.reduce({ forMs: 40 })).toBe(2);
    expect(semaphore.reduce({ forMs: 40 })).toBe(1);
    expect(semaphore.reduce({ forMs: 40 })).toBe(1);
    expect(semaphore.limit).toBe(1);

    now = 40;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(semaphore.limit).toBe(8);
  });

  it('holds new calls back while more than the lowered limit are in flight', async () => {
    const semaphore = new ModelSemaphore({ limit: 2 });
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    semaphore.reduce({ forMs: 10_000 });
    let admitted = false;
    const third = semaphore.acquire().then((release) => {
      admitted = true;
      return release;
    });
    first();
    await tick();
    expect(admitted).toBe(false);
    second();
    await tick();
    expect(admitted).toBe(true);
    (await third)();
  });

  it('rejects a limit below 1 and offers a process-wide default', () => {
    expect(() => new ModelSemaphore({ limit: 0 })).toThrow(ModelError);
    expect(defaultModelSemaphore.limit).toBe(8);
  });
});
