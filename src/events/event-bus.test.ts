import { AsyncLocalStorage } from 'node:async_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './agent-event.js';
import { EventBus } from './event-bus.js';

const delta = (text: string) => ({ type: 'model:delta', step: 1, text }) as const;
const heartbeat = { type: 'heartbeat' } as const;

function collect(bus: EventBus, options: { queueSize?: number } = {}) {
  const events: AgentEvent[] = [];
  const subscription = bus.subscribe((event) => {
    events.push(event);
  }, options);
  return { events, subscription };
}

describe('EventBus', () => {
  it('delivers in a microtask queued when the event is emitted, in the async context of that emit', async () => {
    const storage = new AsyncLocalStorage<string>();
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe((event) => {
      seen.push(`${event.type}@${storage.getStore() ?? 'none'}`);
    });
    storage.run('request-1', () => {
      queueMicrotask(() => seen.push('before'));
      bus.forRun('r1').emit(heartbeat);
      queueMicrotask(() => seen.push('after'));
    });
    await bus.idle();
    expect(seen).toEqual(['before', 'heartbeat@request-1', 'after']);
  });

  it('calls no listener on the producer’s stack and delivers once the producer yields', async () => {
    const bus = new EventBus();
    const { events } = collect(bus);
    const emitter = bus.forRun('r1');
    emitter.emit(heartbeat);
    emitter.emit(delta('a'));
    expect(events).toEqual([]);
    await bus.idle();
    expect(events.map((event) => `${event.runId}:${event.seq}:${event.type}`)).toEqual([
      'r1:1:heartbeat',
      'r1:2:model:delta',
    ]);
  });

  it('stamps a drafted event in place, numbered with the others, its envelope first as emit writes it', async () => {
    const bus = new EventBus();
    const { events } = collect(bus);
    const emitter = bus.forRun('r1', { startSeq: 4 });
    const body = { type: 'tool:start', step: 2, toolCallId: 'c1', tool: 'query_order' } as const;
    const emitted = emitter.emit(body);
    const draft = { runId: '', seq: 0, at: 0, ...body };
    const drafted = emitter.emitDraft(draft);
    expect(drafted).toBe(draft);
    expect(emitter.lastSeq).toBe(6);
    expect(JSON.stringify({ ...drafted, seq: 5, at: emitted.at })).toBe(JSON.stringify(emitted));
    await bus.idle();
    expect(events.map((event) => `${event.runId}:${event.seq}:${event.type}`)).toEqual([
      'r1:5:tool:start',
      'r1:6:tool:start',
    ]);
  });

  it('continues a resumed run’s numbering from startSeq', async () => {
    const bus = new EventBus();
    const { events } = collect(bus);
    const emitter = bus.forRun('r1', { startSeq: 41 });
    emitter.emit(heartbeat);
    expect(emitter.lastSeq).toBe(42);
    await bus.idle();
    expect(events[0]?.seq).toBe(42);
  });

  it('hands an async listener the next event only after its promise settles', async () => {
    const bus = new EventBus();
    let inFlight = 0;
    let mostInFlight = 0;
    const seen: number[] = [];
    bus.subscribe(async (event) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, event.seq % 3));
      seen.push(event.seq);
      inFlight -= 1;
    });
    const emitter = bus.forRun('r1');
    for (let index = 0; index < 20; index += 1) emitter.emit(delta(String(index)));
    await bus.idle();
    expect(mostInFlight).toBe(1);
    expect(seen).toEqual(Array.from({ length: 20 }, (_unused, index) => index + 1));
  });

  it('reports a listener that throws or rejects and keeps delivering to it and to the others', async () => {
    const reported: string[] = [];
    const bus = new EventBus({
      onListenerError: (error, event) => reported.push(`bus ${event.seq} ${(error as Error).message}`),
    });
    const own: number[] = [];
    bus.subscribe(
      (event) => {
        if (event.seq % 2 === 1) throw new Error('sync');
      },
      { onError: (_error, event) => own.push(event.seq) },
    );
    bus.subscribe(async (event) => {
      if (event.seq === 2) throw new Error('async');
    });
    const { events } = collect(bus);
    const emitter = bus.forRun('r1');
    for (let index = 0; index < 4; index += 1) emitter.emit(heartbeat);
    await bus.idle();
    expect(events).toHaveLength(4);
    expect(reported.sort()).toEqual(['bus 1 sync', 'bus 2 async', 'bus 3 sync']);
    expect(own).toEqual([1, 3]);
  });

  it('survives an onListenerError that throws itself', async () => {
    const bus = new EventBus({
      onListenerError: () => {
        throw new Error('reporter down');
      },
    });
    bus.subscribe(() => {
      throw new Error('listener down');
    });
    const { events } = collect(bus);
    bus.forRun('r1').emit(heartbeat);
    await bus.idle();
    expect(events).toHaveLength(1);
  });

  it('lets a listener that never returns stall only its own bounded queue', async () => {
    const bus = new EventBus();
    const stalled = bus.subscribe(() => new Promise<void>(() => {}), { queueSize: 10 });
    const { events } = collect(bus);
    const emitter = bus.forRun('r1');
    for (let index = 0; index < 1000; index += 1) emitter.emit(index % 10 === 0 ? heartbeat : delta('x'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toHaveLength(1000);
    expect(stalled.stats()).toMatchObject({ delivered: 1, maxQueued: 10 });
    const { queued, delivered, coalesced, dropped } = stalled.stats();
    expect(queued + delivered + coalesced + dropped).toBe(1000);
  });

  it('cuts off a subscriber that cannot keep up even with run:end and shows it a gap for each run it missed', async () => {
    const bus = new EventBus();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const received: AgentEvent[] = [];
    const stalled = bus.subscribe(
      async (event) => {
        received.push(event);
        await released;
      },
      { queueSize: 50 },
    );
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const runs = Array.from({ length: 60 }, (_unused, index) => bus.forRun(`run-${index}`));
    for (const emitter of runs) emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    for (const emitter of runs) {
      emitter.emit(heartbeat);
      emitter.emit({ type: 'run:end', stopReason: 'completed', steps: 1, usage, durationMs: 1 });
    }
    await Promise.resolve();
    release();
    await stalled.idle();
    expect(stalled.stats()).toMatchObject({ maxQueued: 50, closed: false });
    for (const { runId } of runs) {
      const own = received.filter((event) => event.runId === runId);
      const ended = own.some((event) => event.type === 'run:end');
      const gap = own.find((event) => event.type === 'gap');
      expect(ended || (gap?.type === 'gap' && gap.toSeq === 3)).toBe(true);
    }
    expect(received.filter((event) => event.type === 'gap').length).toBeGreaterThan(0);
  });

  it('gives up on a listener cut off across more runs than it can track, telling it once, with memory bounded', async () => {
    const bus = new EventBus();
    let cutOff = 0;
    const received: AgentEvent[] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stalled = bus.subscribe(
      async (event) => {
        received.push(event);
        await released;
      },
      { queueSize: 10, onCutOff: () => (cutOff += 1) },
    );
    const { events } = collect(bus);
    for (let run = 0; run < 100; run += 1)
      bus.forRun(`run-${run}`).emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    await Promise.resolve();
    expect(cutOff).toBe(1);
    expect(stalled.stats()).toMatchObject({ closed: true, maxQueued: 10 });
    bus.forRun('late').emit(heartbeat);
    release();
    await stalled.idle();
    expect(events).toHaveLength(101);
    expect(received.filter((event) => event.type === 'run:start')).toHaveLength(10);
    expect(received.filter((event) => event.type === 'gap')).toHaveLength(64);
    expect(received.some((event) => event.runId === 'late')).toBe(false);
  });

  it('stops delivering, queued events included, once unsubscribed', async () => {
    const bus = new EventBus();
    const { events, subscription } = collect(bus);
    const emitter = bus.forRun('r1');
    emitter.emit(heartbeat);
    subscription();
    emitter.emit(heartbeat);
    await bus.idle();
    await subscription.idle();
    expect(events).toEqual([]);
  });

  it('numbers events strictly in order and delivers them in that order when many async producers share a run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 12 }),
        async (scheduler, producers) => {
          const bus = new EventBus();
          const { events } = collect(bus);
          const slow: AgentEvent[] = [];
          bus.subscribe(async (event) => {
            await scheduler.schedule(Promise.resolve());
            slow.push(event);
          });
          const emitter = bus.forRun('r1');
          const returned: number[] = [];
          const running = producers.map(async (count, producer) => {
            for (let index = 0; index < count; index += 1) {
              await scheduler.schedule(Promise.resolve(), `producer ${producer}`);
              returned.push(emitter.emit(delta(`${producer}.${index}`)).seq);
            }
          });
          await scheduler.waitFor(Promise.all(running));
          await scheduler.waitFor(bus.idle());
          const total = producers.reduce((sum, count) => sum + count, 0);
          const expected = Array.from({ length: total }, (_unused, index) => index + 1);
          expect(returned).toEqual(expected);
          expect(events.map((event) => event.seq)).toEqual(expected);
          expect(slow.map((event) => event.seq)).toEqual(expected);
          expect(emitter.lastSeq).toBe(total);
        },
      ),
      { numRuns: 50 },
    );
  });
});
