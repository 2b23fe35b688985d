import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { EventBus, type RunEmitter, type Subscription } from './event-bus.js';
import { FragmentBuffer } from './fragment-buffer.js';
import { RunLane } from './run-lane.js';
import { SubscriberQueue } from './subscriber-queue.js';

/**
 * The run lane lets the emitter skip the subscriber queues while every
 * subscriber is behind on a run. A first version of this shortcut lost a
 * run:end under 500 SSE clients; these tests aim at that class of failure:
 * a kept or terminal event arriving while deltas are parked, several runs
 * interleaved on one bus, a subscriber resuming mid-run, subscribing and
 * unsubscribing while parked. The property test drives a real bus and, for
 * each subscriber, the reference: a plain `SubscriberQueue` offered every
 * event directly (no lane), taken from whenever the real listener is
 * called; every delivered event and the final stats must be identical.
 */

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const delta = (text: string, step = 1): AgentEventBody => ({ type: 'model:delta', step, text });
const heartbeat: AgentEventBody = { type: 'heartbeat' };
const toolStart: AgentEventBody = { type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order' };
const runEnd: AgentEventBody = { type: 'run:end', stopReason: 'completed', steps: 1, usage, durationMs: 1 };
const approval: AgentEventBody = {
  type: 'approval:required',
  step: 1,
  approvalId: 'a1',
  toolCallId: 'c1',
  tool: 'refund',
  arguments: '{}',
  reason: 'over the line',
} as unknown as AgentEventBody;

/** Counts the events the lanes recorded, so each test can show the shortcut was taken. */
function countRecorded(): { readonly count: () => number } {
  const original = RunLane.prototype.record;
  let recorded = 0;
  vi.spyOn(RunLane.prototype, 'record').mockImplementation(function (
    this: RunLane,
    body: AgentEventBody,
    seq: number,
    at: number,
  ) {
    const taken = original.call(this, body, seq, at);
    if (taken) recorded += 1;
    return taken;
  });
  return { count: () => recorded };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A listener stalled until `release`; records what it got. */
function stallable(bus: EventBus, queueSize: number) {
  const events: AgentEvent[] = [];
  let stalled = true;
  let wake: (() => void) | undefined;
  const subscription = bus.subscribe(
    (event) => {
      events.push(event);
      if (!stalled) return undefined;
      return new Promise<void>((resolve) => {
        wake = resolve;
      });
    },
    { queueSize },
  );
  return {
    events,
    subscription,
    release() {
      stalled = false;
      wake?.();
      wake = undefined;
    },
  };
}

const describeEvent = (event: AgentEvent) =>
  `${event.runId}:${event.seq}:${event.type}${event.type === 'model:delta' ? `:${event.step}:${event.text}` : ''}`;

/** The delta text a subscriber got for one run and step. */
const textOf = (events: readonly AgentEvent[], runId: string, step = 1) =>
  events
    .filter((event) => event.runId === runId && event.type === 'model:delta' && event.step === step)
    .map((event) => (event.type === 'model:delta' ? event.text : ''))
    .join('');

/**
 * An emitter that also offers each event to `references` (plain queues, no
 * lane), to compare with what the bus delivered.
 */
function tracked(emitter: RunEmitter, references: readonly SubscriberQueue[]): RunEmitter {
  return {
    runId: emitter.runId,
    get lastSeq() {
      return emitter.lastSeq;
    },
    emit(body) {
      const event = emitter.emit(body);
      for (const reference of references) reference.offer(event);
      return event;
    },
    emitDraft(draft) {
      const event = emitter.emitDraft(draft);
      for (const reference of references) reference.offer(event);
      return event;
    },
  };
}

function drain(queue: SubscriberQueue): AgentEvent[] {
  const taken: AgentEvent[] = [];
  for (let event = queue.take(); event !== undefined; event = queue.take()) taken.push(event);
  return taken;
}

function streamWords(emitter: RunEmitter, from: number, count: number, step = 1): string {
  let text = '';
  for (let index = from; index < from + count; index += 1) {
    const word = `w${index} `;
    text += word;
    emitter.emit(delta(word, step));
    if (index % 7 === 0) emitter.emit(heartbeat);
  }
  return text;
}

describe('RunLane', () => {
  it('delivers a run:end and an approval that arrive while deltas are parked, after the whole text', async () => {
    const recorded = countRecorded();
    const bus = new EventBus();
    const subscriber = stallable(bus, 16);
    const reference = new SubscriberQueue({ capacity: 16 });
    const emitter = tracked(bus.forRun('r1'), [reference]);
    emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    const first = streamWords(emitter, 0, 500);
    emitter.emit(approval);
    const second = streamWords(emitter, 500, 500);
    emitter.emit(runEnd);
    expect(recorded.count()).toBeGreaterThan(900);
    subscriber.release();
    await bus.idle();
    expect(subscriber.events.map(describeEvent)).toEqual(drain(reference).map(describeEvent));
    expect(subscriber.subscription.stats()).toEqual(reference.stats());
    const types = subscriber.events.map((event) => event.type);
    expect(types.filter((type) => type === 'run:end')).toHaveLength(1);
    expect(types.at(-1)).toBe('run:end');
    expect(types).toContain('approval:required');
    expect(textOf(subscriber.events, 'r1')).toBe(first + second);
    // The approval sits between the two halves of the text.
    const approvalAt = types.indexOf('approval:required');
    expect(textOf(subscriber.events.slice(0, approvalAt), 'r1')).toBe(first);
    const seqs = subscriber.events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
    expect(subscriber.events.at(-1)?.seq).toBe(emitter.lastSeq);
  });

  it('keeps several runs interleaved on one bus apart, each in order with its run:end, as a queue offered every event', async () => {
    const recorded = countRecorded();
    const bus = new EventBus();
    const subscriber = stallable(bus, 16);
    const reference = new SubscriberQueue({ capacity: 16 });
    const runs = ['a', 'b', 'c'].map((runId) => ({
      runId,
      emitter: tracked(bus.forRun(runId), [reference]),
      text: '',
    }));
    for (const run of runs) run.emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    // Long stretches of one run (parked), then a switch to the next: each switch flushes the lane of the one before.
    for (let round = 0; round < 6; round += 1) {
      for (const run of runs) run.text += streamWords(run.emitter, round * 100, 100);
    }
    for (const run of runs) run.emitter.emit(runEnd);
    expect(recorded.count()).toBeGreaterThan(1000);
    subscriber.release();
    await bus.idle();
    expect(subscriber.events.map(describeEvent)).toEqual(drain(reference).map(describeEvent));
    expect(subscriber.subscription.stats()).toEqual(reference.stats());
    for (const run of runs) {
      const own = subscriber.events.filter((event) => event.runId === run.runId);
      expect(own.filter((event) => event.type === 'run:end')).toHaveLength(1);
      const seqs = own.map((event) => event.seq);
      expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
      // Interleaved runs fill the queue with one delta per run: there the queue's own policy drops deltas (counted),
      // as the reference shows; whatever text arrives is the run's, in order.
      expect(run.text.startsWith(textOf(own, run.runId).split(' ')[0] ?? '')).toBe(true);
    }
  });

  it('gives a subscriber resuming mid-run the text recorded while it was parked, then the rest as it comes', async () => {
    const recorded = countRecorded();
    const bus = new EventBus();
    const subscriber = stallable(bus, 8);
    const emitter = bus.forRun('r1');
    emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    let text = streamWords(emitter, 0, 300);
    expect(recorded.count()).toBeGreaterThan(200);
    subscriber.release();
    await bus.idle();
    expect(textOf(subscriber.events, 'r1')).toBe(text);
    text += streamWords(emitter, 300, 50);
    emitter.emit(runEnd);
    await bus.idle();
    expect(textOf(subscriber.events, 'r1')).toBe(text);
    expect(subscriber.events.at(-1)?.type).toBe('run:end');
    expect(subscriber.subscription.stats()).toMatchObject({ queued: 0, lost: 0, gaps: 0 });
  });

  it('unsubscribing one parked subscriber leaves the other with everything, and delivers nothing more to it', async () => {
    const recorded = countRecorded();
    const bus = new EventBus();
    const leaving = stallable(bus, 8);
    const staying = stallable(bus, 8);
    const emitter = bus.forRun('r1');
    emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    let text = streamWords(emitter, 0, 200);
    const before = recorded.count();
    expect(before).toBeGreaterThan(100);
    leaving.subscription();
    text += streamWords(emitter, 200, 200);
    // Alone now, the staying subscriber parks again on its own.
    expect(recorded.count()).toBeGreaterThan(before + 100);
    emitter.emit(runEnd);
    leaving.release();
    staying.release();
    await bus.idle();
    expect(textOf(staying.events, 'r1')).toBe(text);
    expect(staying.events.at(-1)?.type).toBe('run:end');
    // It left before its first delivery (the first would have come on the next microtask).
    expect(leaving.events).toEqual([]);
    expect(leaving.subscription.stats()).toMatchObject({ queued: 0, delivered: 0 });
  });

  it('a subscriber that joins while others are parked gets every event from then on', async () => {
    const recorded = countRecorded();
    const bus = new EventBus();
    const stalled = stallable(bus, 8);
    const emitter = bus.forRun('r1');
    emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    streamWords(emitter, 0, 200);
    expect(recorded.count()).toBeGreaterThan(100);
    const joined: AgentEvent[] = [];
    bus.subscribe((event) => {
      joined.push(event);
    });
    const text = streamWords(emitter, 200, 200);
    emitter.emit(runEnd);
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(textOf(joined, 'r1')).toBe(text);
    expect(joined.at(-1)?.type).toBe('run:end');
    expect(joined.map((event) => event.seq)).toEqual(
      Array.from({ length: joined.length }, (_unused, index) => (joined[0]?.seq ?? 0) + index),
    );
    stalled.release();
    await bus.idle();
    expect(stalled.events.at(-1)?.type).toBe('run:end');
  });

  it('a subscriber cut off while parked gets its gap, and the run:end it missed is inside it', async () => {
    const bus = new EventBus();
    const cutOff = vi.fn();
    const events: AgentEvent[] = [];
    let wake: (() => void) | undefined;
    const subscription = bus.subscribe(
      (event) => {
        events.push(event);
        if (wake !== undefined || events.length > 1) return undefined;
        return new Promise<void>((resolve) => {
          wake = resolve;
        });
      },
      { queueSize: 2, onCutOff: cutOff },
    );
    const emitter = bus.forRun('r1');
    emitter.emit({ type: 'run:start', sessionId: undefined, model: 'm' });
    await Promise.resolve();
    streamWords(emitter, 0, 100);
    emitter.emit(approval);
    emitter.emit(runEnd);
    wake?.();
    await subscription.idle();
    const gap = events.find((event) => event.type === 'gap');
    const endSeq = emitter.lastSeq;
    expect(
      events.some((event) => event.type === 'run:end') ||
        (gap?.type === 'gap' && gap.fromSeq <= endSeq && gap.toSeq >= endSeq),
    ).toBe(true);
  });

  it('matches a queue offered every event directly, whatever is emitted, stalled, released, joined or left', async () => {
    type Command =
      | {
          kind: 'emit';
          run: number;
          body: 'delta1' | 'delta2' | 'heartbeat' | 'progress' | 'keep' | 'end';
          text: string;
        }
      | { kind: 'burst'; run: number; count: number }
      | { kind: 'stall'; subscriber: number }
      | { kind: 'release'; subscriber: number }
      | { kind: 'subscribe'; queueSize: number }
      | { kind: 'unsubscribe'; subscriber: number }
      | { kind: 'tick' };
    const command: fc.Arbitrary<Command> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('emit' as const),
          run: fc.integer({ min: 0, max: 2 }),
          body: fc.constantFrom('delta1', 'delta1', 'delta1', 'delta2', 'heartbeat', 'progress', 'keep', 'end'),
          text: fc.stringMatching(/^[a-z]{1,3}$/),
        }),
      },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('burst' as const),
          run: fc.integer({ min: 0, max: 2 }),
          count: fc.integer({ min: 1, max: 40 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('stall' as const), subscriber: fc.nat(3) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), subscriber: fc.nat(3) }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('subscribe' as const), queueSize: fc.integer({ min: 1, max: 6 }) }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('unsubscribe' as const), subscriber: fc.nat(3) }) },
      { weight: 2, arbitrary: fc.constant({ kind: 'tick' as const }) },
    );

    interface Follower {
      readonly reference: SubscriberQueue;
      readonly subscription: Subscription;
      readonly received: AgentEvent[];
      readonly mismatches: string[];
      /** In the bus's list: offered every event (false once unsubscribed or cut off). */
      listed: boolean;
      stalled: boolean;
      wake: (() => void) | undefined;
    }

    const bodyFor = (body: string, text: string): AgentEventBody => {
      switch (body) {
        case 'delta1':
          return delta(text, 1);
        case 'delta2':
          return delta(text, 2);
        case 'heartbeat':
          return heartbeat;
        case 'progress':
          return toolStart;
        case 'keep':
          return approval;
        default:
          return runEnd;
      }
    };

    let lanesUsed = 0;
    const original = RunLane.prototype.record;
    vi.spyOn(RunLane.prototype, 'record').mockImplementation(function (
      this: RunLane,
      body: AgentEventBody,
      seq: number,
      at: number,
    ) {
      const taken = original.call(this, body, seq, at);
      if (taken) lanesUsed += 1;
      return taken;
    });

    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 60 }), async (commands) => {
        const bus = new EventBus();
        const emitters = [bus.forRun('r0'), bus.forRun('r1'), bus.forRun('r2')];
        const followers: Follower[] = [];
        const subscribe = (queueSize: number) => {
          const follower: Follower = {
            reference: new SubscriberQueue({ capacity: queueSize }),
            subscription: undefined as unknown as Subscription,
            received: [],
            mismatches: [],
            listed: true,
            stalled: true,
            wake: undefined,
          };
          const subscription = bus.subscribe(
            (event) => {
              const expected = follower.reference.take();
              // A gap marker's `at` is the clock when it was made: the reference makes its own a moment later.
              const comparable = (item: AgentEvent | undefined) =>
                JSON.stringify(item?.type === 'gap' ? { ...item, at: 0 } : item);
              if (comparable(expected) !== comparable(event)) {
                follower.mismatches.push(`got ${JSON.stringify(event)}, reference ${JSON.stringify(expected)}`);
              }
              follower.received.push(event);
              if (!follower.stalled) return undefined;
              return new Promise<void>((resolve) => {
                follower.wake = resolve;
              });
            },
            {
              queueSize,
              onCutOff: () => {
                follower.listed = false;
              },
            },
          );
          Object.assign(follower, { subscription });
          followers.push(follower);
        };
        const emit = (run: number, body: AgentEventBody) => {
          const event = (emitters[run] as RunEmitter).emit(body);
          for (const follower of followers) {
            if (!follower.listed) continue;
            // Cut off: the bus removes the subscriber at once (onCutOff itself is told later).
            if (!follower.reference.offer(event)) follower.listed = false;
          }
        };
        const release = (follower: Follower) => {
          follower.stalled = false;
          const wake = follower.wake;
          follower.wake = undefined;
          wake?.();
        };
        subscribe(3);
        for (const step of commands) {
          const follower = 'subscriber' in step ? followers[step.subscriber % followers.length] : undefined;
          switch (step.kind) {
            case 'emit':
              emit(step.run, bodyFor(step.body, step.text));
              break;
            case 'burst':
              for (let index = 0; index < step.count; index += 1) {
                emit(step.run, index % 9 === 8 ? heartbeat : delta(`t${index}`, 1));
              }
              break;
            case 'stall':
              if (follower !== undefined) follower.stalled = true;
              break;
            case 'release':
              if (follower !== undefined) release(follower);
              break;
            case 'subscribe':
              if (followers.length < 4) subscribe(step.queueSize);
              break;
            case 'unsubscribe':
              if (follower?.listed) {
                follower.subscription();
                follower.listed = false;
                follower.reference.clear();
              }
              break;
            case 'tick':
              await new Promise((resolve) => setTimeout(resolve, 0));
              break;
          }
        }
        for (const follower of followers) release(follower);
        await new Promise((resolve) => setTimeout(resolve, 0));
        await bus.idle();
        for (const follower of followers) {
          await follower.subscription.idle();
          expect(follower.mismatches).toEqual([]);
          expect(follower.subscription.stats()).toEqual(follower.reference.stats());
          expect(follower.reference.take()).toBeUndefined();
          // What the reference's queue guarantees the real one does too: per run, seqs only grow.
          const last = new Map<string, number>();
          for (const event of follower.received) {
            expect(event.seq).toBeGreaterThan(last.get(event.runId) ?? 0);
            last.set(event.runId, event.type === 'gap' ? event.toSeq : event.seq);
          }
        }
      }),
      { numRuns: 300 },
    );
    // The shortcut was taken, so the runs above compared it with the reference.
    expect(lanesUsed).toBeGreaterThan(1000);
  });
});

describe('FragmentBuffer', () => {
  it('joins what was appended in order, across blocks, and shares full blocks without changing them', () => {
    const first = new FragmentBuffer();
    const words = Array.from({ length: 70_000 }, (_unused, index) => `${index % 10}`);
    for (const word of words) first.append(word);
    expect(first.size).toBe(70_000);
    const second = new FragmentBuffer();
    second.append('<');
    second.appendAll(first);
    second.append('>');
    const third = new FragmentBuffer();
    third.appendAll(first);
    expect(second.take()).toBe(`<${words.join('')}>`);
    expect(third.take()).toBe(words.join(''));
    expect(first.take()).toBe(words.join(''));
    expect(first.size).toBe(0);
    expect(first.take()).toBe('');
  });
});

describe('SubscriberQueue with a lane', () => {
  it('flushes the lane before any entry point reads or changes a parked queue', () => {
    const queue = new SubscriberQueue({ capacity: 2 });
    const event = (seq: number, body: AgentEventBody) => ({ ...body, runId: 'r1', seq, at: seq }) as AgentEvent;
    queue.offer(event(1, { type: 'run:start', sessionId: undefined, model: 'm' }));
    queue.offer(event(2, delta('a')));
    queue.offer(event(3, delta('b')));
    const lane = new RunLane('r1');
    expect(queue.canPark(lane, 1)).toBe(true);
    expect(queue.canPark(lane, 2)).toBe(false);
    expect(queue.canPark(new RunLane('r2'), 1)).toBe(false);
    queue.park(lane);
    const subscribers = [{}];
    lane.activate(subscribers, [queue], 1, queue.dropsProgressWhileParked);
    expect(lane.record(delta('c'), 4, 4)).toBe(true);
    expect(lane.record(heartbeat, 5, 5)).toBe(true);
    expect(lane.record(delta('x', 2), 6, 6)).toBe(false);
    expect(lane.record(runEnd, 6, 6)).toBe(false);
    expect(queue.stats()).toMatchObject({ coalesced: 2, dropped: 1, queued: 2 });
    expect(lane.activeFor).toBeUndefined();
    expect(queue.take()?.type).toBe('run:start');
    const merged = queue.take();
    expect(merged).toMatchObject({ type: 'model:delta', seq: 4, at: 4, text: 'abc' });
    expect(describeEvent(merged as AgentEvent)).toBe('r1:4:model:delta:1:abc');
  });
});

describe('RunLane.record', () => {
  it('records a progress event only when every parked queue would drop it, and never a kept event or a delta of another step', () => {
    for (const dropsProgress of [true, false]) {
      const lane = new RunLane('r1');
      lane.activate([{}], [], 1, dropsProgress);
      expect(lane.record(toolStart, 2, 2)).toBe(dropsProgress);
      expect(lane.record(heartbeat, 3, 3)).toBe(true);
      expect(lane.record(delta('a'), 4, 4)).toBe(true);
      expect(lane.record(delta('b', 2), 5, 5)).toBe(false);
      expect(lane.record(approval, 5, 5)).toBe(false);
      expect(lane.record(runEnd, 5, 5)).toBe(false);
      expect(lane.record({ type: 'run:start', sessionId: undefined, model: 'm' }, 5, 5)).toBe(false);
    }
  });
});
