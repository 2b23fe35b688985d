import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from './agent-event.js';
import { EventBus } from './event-bus.js';
import { startHeartbeat } from './start-heartbeat.js';

describe('startHeartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('emits a numbered heartbeat every interval until stopped', async () => {
    const bus = new EventBus();
    const seen: AgentEvent[] = [];
    bus.subscribe((event) => {
      seen.push(event);
    });
    const emitter = bus.forRun('r1');
    emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    const stop = startHeartbeat({ emitter, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(3500);
    stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(seen.map((event) => `${event.seq} ${event.type}`)).toEqual([
      '1 run:start',
      '2 heartbeat',
      '3 heartbeat',
      '4 heartbeat',
    ]);
  });

  it('beats every live run on one timer, and a run that stops gets no more', async () => {
    const bus = new EventBus();
    const seen: AgentEvent[] = [];
    bus.subscribe((event) => {
      seen.push(event);
    });
    const first = bus.forRun('r1');
    const second = bus.forRun('r2');
    const stopFirst = startHeartbeat({ emitter: first, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(400);
    const stopSecond = startHeartbeat({ emitter: second, intervalMs: 1000 });
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    stopFirst();
    await vi.advanceTimersByTimeAsync(1000);
    stopSecond();
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen.map((event) => `${event.runId} ${event.seq} ${event.type}`)).toEqual([
      'r1 1 heartbeat',
      'r2 1 heartbeat',
      'r2 2 heartbeat',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does nothing for an interval of 0, so a caller can turn it off', async () => {
    const emitter = new EventBus().forRun('r1');
    const stop = startHeartbeat({ emitter, intervalMs: 0 });
    await vi.advanceTimersByTimeAsync(60_000);
    stop();
    expect(emitter.lastSeq).toBe(0);
  });
});
