import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { EventBus, type Subscription } from './event-bus.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const runStart: AgentEventBody = { type: 'run:start', sessionId: undefined, model: 'm' };
const heartbeat: AgentEventBody = { type: 'heartbeat' };
const toolStart = (step: number): AgentEventBody => ({
  type: 'tool:start',
  step,
  toolCallId: 'c1',
  tool: 'query_order',
});
const delta = (text: string, step: number): AgentEventBody => ({ type: 'model:delta', step, text });

/** A listener that stalls on every event until `release` lets the one it holds go. */
function gated(
  bus: EventBus,
  queueSize: number,
): { received: AgentEvent[]; release: () => void; subscription: Subscription } {
  const received: AgentEvent[] = [];
  let waiting: (() => void)[] = [];
  let open = false;
  const subscription = bus.subscribe(
    (event) => {
      received.push(event);
      if (open) return undefined;
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    { queueSize },
  );
  const release = () => {
    const resolve = waiting;
    waiting = [];
    for (const done of resolve) done();
  };
  return {
    received,
    release,
    subscription: Object.assign(() => {
      open = true;
      release();
    }, subscription),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

type Delta = Extract<AgentEvent, { type: 'model:delta' }>;

/**
 * Checks what one subscriber got against what was emitted: every delta it
 * got carries the seq and time of the last delta it stands for and the text
 * of every delta of its step since the one before, nothing of the answer is
 * missing, and seqs only grow.
 */
function expectWholeAnswer(emitted: readonly AgentEvent[], received: readonly AgentEvent[]): void {
  const seqs = received.map((event) => event.seq);
  expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
  expect(new Set(seqs).size).toBe(seqs.length);
  const emittedDeltas = emitted.filter((event): event is Delta => event.type === 'model:delta');
  const covered = new Map<number, number>();
  for (const event of received) {
    if (event.type !== 'model:delta') continue;
    const from = covered.get(event.step) ?? 0;
    const standsFor = emittedDeltas.filter(
      (item) => item.step === event.step && item.seq > from && item.seq <= event.seq,
    );
    expect(event.text).toBe(standsFor.map((item) => item.text).join(''));
    expect(event.at).toBe(emitted[event.seq - 1]?.at);
    expect(emitted[event.seq - 1]?.type).toBe('model:delta');
    covered.set(event.step, event.seq);
  }
  for (const step of new Set(emittedDeltas.map((event) => event.step))) {
    const text = (events: readonly AgentEvent[]) =>
      events
        .filter((event): event is Delta => event.type === 'model:delta' && event.step === step)
        .map((event) => event.text)
        .join('');
    expect(text(received)).toBe(text(emitted));
  }
}

describe('EventBus with a stalled subscriber', () => {
  it('hands a subscriber stalled for a whole answer, once it reads again, the text it missed in one delta', async () => {
    const bus = new EventBus();
    const stalled = gated(bus, 100);
    const emitter = bus.forRun('r1');
    const emitted = [emitter.emit(runStart)];
    for (let index = 0; index < 5000; index += 1) {
      const body = index % 10 === 0 ? heartbeat : index % 20 === 5 ? toolStart(1) : delta(`${index} `, 1);
      emitted.push(emitter.emit(body));
    }
    await settle();
    expect(stalled.subscription.stats()).toMatchObject({ delivered: 1, maxQueued: 100, lost: 0 });
    stalled.subscription();
    await stalled.subscription.idle();
    expectWholeAnswer(emitted, stalled.received);
    const { queued, delivered, coalesced, dropped } = stalled.subscription.stats();
    expect(queued).toBe(0);
    expect(delivered + coalesced + dropped).toBe(emitted.length);
    expect(stalled.received.at(-1)).toMatchObject({ type: 'model:delta', seq: 5001 });
  });

  it('merges, drops and delivers the same whether its events come one by one or through the run lane', async () => {
    // One bus with the stalled subscriber alone (every event through the lane once it is parked), one with a
    // subscriber that keeps up beside it (never parked): the stalled one must get the same events from both.
    const alone = new EventBus();
    const stalledAlone = gated(alone, 8);
    const beside = new EventBus();
    const stalledBeside = gated(beside, 8);
    beside.subscribe(() => {});
    const emitters = [alone.forRun('r1'), beside.forRun('r1')];
    const bodies: AgentEventBody[] = [runStart];
    for (let index = 0; index < 300; index += 1) {
      const step = index < 150 ? 1 : 2;
      bodies.push(index % 7 === 0 ? heartbeat : index % 11 === 3 ? toolStart(step) : delta(`${index}.`, step));
    }
    for (const body of bodies) for (const emitter of emitters) emitter.emit(body);
    await settle();
    expect(stalledAlone.subscription.stats()).toEqual(stalledBeside.subscription.stats());
    for (const stalled of [stalledAlone, stalledBeside]) stalled.subscription();
    await Promise.all([stalledAlone.subscription.idle(), stalledBeside.subscription.idle()]);
    const shape = (events: readonly AgentEvent[]) =>
      events.map(({ type, seq, ...rest }) => `${seq} ${type} ${'text' in rest ? rest.text : ''}`);
    expect(shape(stalledAlone.received)).toEqual(shape(stalledBeside.received));
    expect(stalledAlone.subscription.stats()).toEqual(stalledBeside.subscription.stats());
  });

  it('gives every slow subscriber, however it is released, the concatenation of the deltas it missed', async () => {
    const operation = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.string({ minLength: 1, maxLength: 3 }).map((text) => ({ kind: 'delta' as const, text })),
      },
      { weight: 2, arbitrary: fc.constant({ kind: 'heartbeat' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'tool' as const }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }).map((who) => ({ kind: 'release' as const, who })) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 1, max: 2 }),
        fc.boolean(),
        fc.array(operation, { maxLength: 250, size: 'medium' }),
        async (queueSize, slowSubscribers, withFastSubscriber, script) => {
          const bus = new EventBus();
          const slow = Array.from({ length: slowSubscribers }, (_unused, index) => gated(bus, queueSize + 3 * index));
          const fast: AgentEvent[] = [];
          if (withFastSubscriber) bus.subscribe((event) => void fast.push(event));
          const emitter = bus.forRun('r1');
          const emitted = [emitter.emit(runStart)];
          for (const item of script) {
            if (item.kind === 'delta') emitted.push(emitter.emit(delta(item.text, 1)));
            else if (item.kind === 'heartbeat') emitted.push(emitter.emit(heartbeat));
            else if (item.kind === 'tool') emitted.push(emitter.emit(toolStart(1)));
            else {
              for (const [index, subscriber] of slow.entries())
                if (item.who === index || item.who === 2) subscriber.release();
              await settle();
            }
          }
          for (const subscriber of slow) subscriber.subscription();
          await bus.idle();
          if (withFastSubscriber) expect(fast).toEqual(emitted);
          for (const subscriber of slow) {
            expectWholeAnswer(emitted, subscriber.received);
            const { queued, delivered, coalesced, dropped, lost, maxQueued } = subscriber.subscription.stats();
            expect(queued + lost).toBe(0);
            expect(delivered + coalesced + dropped).toBe(emitted.length);
            expect(maxQueued).toBeLessThanOrEqual(queueSize + 3);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('delivers to a slow subscriber parked on the run lane exactly what it delivers to one offered each event', async () => {
    // Beside a subscriber that keeps up, a slow one is never parked (the lane needs every subscriber parked):
    // it takes each event through `offer`, the reference the lane must match, step changes and runs included.
    // Mostly one run's deltas, heartbeats and tool events, as in a streamed answer, so slow subscribers park.
    const operation = fc.oneof(
      {
        weight: 30,
        arbitrary: fc
          .array(fc.string({ maxLength: 2 }), { minLength: 1, maxLength: 30 })
          .map((texts) => ({ kind: 'deltas' as const, texts })),
      },
      { weight: 6, arbitrary: fc.constant({ kind: 'heartbeat' as const }) },
      { weight: 3, arbitrary: fc.constant({ kind: 'tool' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'nextStep' as const }) },
      { weight: 1, arbitrary: fc.constantFrom('r1', 'r2').map((runId) => ({ kind: 'end' as const, runId })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 2 }).map((text) => ({ kind: 'otherRun' as const, text })) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 }).map((who) => ({ kind: 'release' as const, who })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'stats' as const }) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 2 }),
        fc.array(operation, { maxLength: 300, size: 'medium' }),
        async (size, slowSubscribers, script) => {
          const buses = [new EventBus(), new EventBus()];
          const slow = buses.map((bus) =>
            Array.from({ length: slowSubscribers }, (_unused, index) => gated(bus, size + 2 * index)),
          );
          buses[1]?.subscribe(() => {});
          const emitters = buses.map((bus) => ({ r1: bus.forRun('r1'), r2: bus.forRun('r2') }));
          const emitted: AgentEvent[][] = [[], []];
          let step = 1;
          const emitBoth = (runId: 'r1' | 'r2', body: AgentEventBody) => {
            for (const [index, emitter] of emitters.entries()) emitted[index]?.push(emitter[runId].emit(body));
          };
          emitBoth('r1', runStart);
          emitBoth('r2', runStart);
          for (const item of script) {
            if (item.kind === 'deltas') for (const text of item.texts) emitBoth('r1', delta(text, step));
            else if (item.kind === 'otherRun') emitBoth('r2', delta(item.text, step));
            else if (item.kind === 'heartbeat') emitBoth('r1', heartbeat);
            else if (item.kind === 'tool') emitBoth('r1', toolStart(step));
            else if (item.kind === 'nextStep') step += 1;
            else if (item.kind === 'end')
              emitBoth(item.runId, { type: 'run:end', stopReason: 'completed', steps: step, usage, durationMs: 1 });
            else if (item.kind === 'stats')
              expect(slow[0]?.map((subscriber) => subscriber.subscription.stats())).toEqual(
                slow[1]?.map((subscriber) => subscriber.subscription.stats()),
              );
            else {
              for (const subscribers of slow)
                for (const [index, subscriber] of subscribers.entries())
                  if (item.who === index || item.who === 2) subscriber.release();
              await settle();
            }
          }
          for (const subscribers of slow) for (const subscriber of subscribers) subscriber.subscription();
          await Promise.all(buses.map((bus) => bus.idle()));
          const shape = (events: readonly AgentEvent[]) =>
            events.map(
              (event) => `${event.runId} ${event.seq} ${event.type} ${event.type === 'model:delta' ? event.text : ''}`,
            );
          for (const index of slow[0]?.keys() ?? []) {
            const [alone, beside] = [slow[0]?.[index], slow[1]?.[index]];
            expect(shape(alone?.received ?? [])).toEqual(shape(beside?.received ?? []));
            expect(alone?.subscription.stats()).toEqual(beside?.subscription.stats());
            for (const [bus, subscriber] of [alone, beside].entries()) {
              for (const event of subscriber?.received ?? []) {
                if (event.type === 'gap') continue;
                const source = emitted[bus]?.find((item) => item.runId === event.runId && item.seq === event.seq);
                expect(event.at).toBe(source?.at);
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
