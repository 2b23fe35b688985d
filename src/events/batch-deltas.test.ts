import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from './agent-event.js';
import { batchDeltas } from './batch-deltas.js';

let seq = 0;
const delta = (text: string, runId = 'r1', step = 1): AgentEvent => {
  seq += 1;
  return { type: 'model:delta', step, text, runId, seq, at: 0 };
};
const toolStart = (runId = 'r1'): AgentEvent => {
  seq += 1;
  return { type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order', runId, seq, at: 0 };
};
const show = (event: AgentEvent) =>
  `${event.runId}:${event.seq}:${event.type}${event.type === 'model:delta' ? `:${event.text}` : ''}`;

describe('batchDeltas', () => {
  beforeEach(() => {
    seq = 0;
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('delivers the deltas of one window as one delta with the last seq', async () => {
    const seen: string[] = [];
    const listener = batchDeltas((event) => {
      seen.push(show(event));
    });
    for (const text of ['Your ', 'order ', 'ships ', 'today.']) await listener(delta(text));
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(50);
    expect(seen).toEqual(['r1:4:model:delta:Your order ships today.']);
  });

  it('flushes a run’s held text before any other event of that run, keeping order', async () => {
    const seen: string[] = [];
    const listener = batchDeltas(
      (event) => {
        seen.push(show(event));
      },
      { windowMs: 1000 },
    );
    await listener(delta('a'));
    await listener(delta('b', 'r2'));
    await listener(delta('c'));
    await listener(toolStart());
    expect(seen).toEqual(['r1:3:model:delta:ac', 'r1:4:tool:start']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(seen.at(-1)).toBe('r2:2:model:delta:b');
  });

  it('keeps the text of different steps apart', async () => {
    const seen: string[] = [];
    const listener = batchDeltas((event) => {
      seen.push(show(event));
    });
    await listener(delta('one', 'r1', 1));
    await listener(delta('two', 'r1', 2));
    await listener.flush();
    expect(seen).toEqual(['r1:1:model:delta:one', 'r1:2:model:delta:two']);
  });

  it('never calls the wrapped listener twice at once, even when the timer fires during a slow call', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: string[] = [];
    const listener = batchDeltas(
      async (event) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        seen.push(show(event));
        inFlight -= 1;
      },
      { windowMs: 10 },
    );
    await listener(delta('a', 'r2'));
    const slow = listener(toolStart('r2'));
    await listener(delta('b'));
    await vi.advanceTimersByTimeAsync(100);
    await slow;
    expect(most).toBe(1);
    expect(seen).toEqual(['r2:1:model:delta:a', 'r2:2:tool:start', 'r1:3:model:delta:b']);
  });

  it('reports a failure of a timer-flushed delta to onError and returns other failures to the bus', async () => {
    const errors: string[] = [];
    const listener = batchDeltas(
      (event) => {
        throw new Error(`boom ${event.seq}`);
      },
      { onError: (error) => errors.push((error as Error).message) },
    );
    await listener(delta('a'));
    await vi.advanceTimersByTimeAsync(50);
    expect(errors).toEqual(['boom 1']);
    await expect(listener(toolStart())).rejects.toThrow('boom 2');
  });

  it('passes deltas straight through when the window is 0', async () => {
    const seen: string[] = [];
    const listener = batchDeltas(
      (event) => {
        seen.push(show(event));
      },
      { windowMs: 0 },
    );
    await listener(delta('a'));
    await listener(delta('b'));
    expect(seen).toEqual(['r1:1:model:delta:a', 'r1:2:model:delta:b']);
  });
});
