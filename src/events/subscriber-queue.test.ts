import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { deliveryClass, deliveryClassOf, SubscriberQueue } from './subscriber-queue.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

const bodies = {
  delta: (text = 'x', step = 1): AgentEventBody => ({ type: 'model:delta', step, text }),
  heartbeat: (): AgentEventBody => ({ type: 'heartbeat' }),
  toolStart: (): AgentEventBody => ({ type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order' }),
  runStart: (): AgentEventBody => ({ type: 'run:start', sessionId: undefined, model: 'm' }),
  runEnd: (): AgentEventBody => ({ type: 'run:end', stopReason: 'completed', steps: 1, usage, durationMs: 1 }),
};

function numbered() {
  const seqs = new Map<string, number>();
  return (body: AgentEventBody, runId = 'r1'): AgentEvent => {
    const seq = (seqs.get(runId) ?? 0) + 1;
    seqs.set(runId, seq);
    return { ...body, runId, seq, at: 0 } as AgentEvent;
  };
}

function drain(queue: SubscriberQueue): AgentEvent[] {
  const taken: AgentEvent[] = [];
  for (let event = queue.take(); event !== undefined; event = queue.take()) taken.push(event);
  return taken;
}

describe('deliveryClass', () => {
  it('keeps terminal, approval and error events and lets progress go', () => {
    const event = numbered();
    expect(deliveryClass(event(bodies.delta()))).toBe('coalesce');
    expect(deliveryClass(event(bodies.heartbeat()))).toBe('heartbeat');
    expect(deliveryClass(event(bodies.toolStart()))).toBe('progress');
    expect(deliveryClass(event(bodies.runEnd()))).toBe('keep');
    expect(deliveryClass(event(bodies.runStart()))).toBe('keep');
  });
});

describe('deliveryClassOf', () => {
  it('gives every event type the class deliveryClass gives its events', () => {
    // Every type once: the compiler rejects a type missing from this list.
    const every: Record<AgentEvent['type'], true> = {
      'run:start': true,
      'run:end': true,
      'run:error': true,
      'model:delta': true,
      'model:decision': true,
      'model:end': true,
      'tool:proposed': true,
      'tool:start': true,
      'tool:progress': true,
      'tool:end': true,
      'tool:error': true,
      'approval:required': true,
      'approval:resolved': true,
      heartbeat: true,
      gap: true,
    };
    const types = Object.keys(every) as AgentEvent['type'][];
    expect(Object.fromEntries(types.map((type) => [type, deliveryClassOf(type)]))).toMatchInlineSnapshot(`
      {
        "approval:required": "keep",
        "approval:resolved": "keep",
        "gap": "keep",
        "heartbeat": "heartbeat",
        "model:decision": "keep",
        "model:delta": "coalesce",
        "model:end": "progress",
        "run:end": "keep",
        "run:error": "keep",
        "run:start": "keep",
        "tool:end": "progress",
        "tool:error": "keep",
        "tool:progress": "progress",
        "tool:proposed": "progress",
        "tool:start": "progress",
      }
    `);
    for (const type of types) expect(deliveryClassOf(type)).toBe(deliveryClass({ type }));
  });
});

describe('SubscriberQueue', () => {
  it('merges a delta into the queued delta before it when full', () => {
    const queue = new SubscriberQueue({ capacity: 2 });
    const event = numbered();
    queue.offer(event(bodies.runStart()));
    queue.offer(event(bodies.delta('Hel')));
    queue.offer(event(bodies.delta('lo')));
    queue.offer(event(bodies.delta('!')));
    expect(drain(queue).map((item) => [item.type, item.seq, item.type === 'model:delta' ? item.text : ''])).toEqual([
      ['run:start', 1, ''],
      ['model:delta', 4, 'Hello!'],
    ]);
    expect(queue.stats()).toMatchObject({ coalesced: 2, dropped: 0, maxQueued: 2 });
  });

  it('stays behind once full: merges deltas into its tail and drops heartbeats, even with a slot free, until taken down to half', () => {
    const queue = new SubscriberQueue({ capacity: 4 });
    const event = numbered();
    queue.offer(event(bodies.runStart()));
    queue.offer(event(bodies.toolStart()));
    queue.offer(event(bodies.delta('a')));
    queue.offer(event(bodies.toolStart()));
    queue.offer(event(bodies.delta('b')));
    queue.offer(event(bodies.heartbeat()));
    queue.offer(event(bodies.delta('c')));
    expect(queue.stats()).toMatchObject({ queued: 3, dropped: 2, coalesced: 2 });
    expect(queue.take()?.type).toBe('run:start');
    queue.offer(event(bodies.delta('d')));
    expect(
      drain(queue).map((item) => `${item.seq}:${item.type}${item.type === 'model:delta' ? `:${item.text}` : ''}`),
    ).toEqual(['2:tool:start', '7:model:delta:abc', '8:model:delta:d']);
  });

  it('drops heartbeats first and progress next when full, and still queues run:end', () => {
    const queue = new SubscriberQueue({ capacity: 3 });
    const event = numbered();
    queue.offer(event(bodies.runStart()));
    queue.offer(event(bodies.heartbeat()));
    queue.offer(event(bodies.toolStart()));
    queue.offer(event(bodies.heartbeat()));
    queue.offer(event(bodies.toolStart()));
    queue.offer(event(bodies.runEnd()));
    queue.offer(event(bodies.runEnd()));
    expect(drain(queue).map((item) => `${item.seq}:${item.type}`)).toEqual(['1:run:start', '6:run:end', '7:run:end']);
    expect(queue.stats()).toMatchObject({ dropped: 4, gaps: 0, maxQueued: 3 });
  });

  it('cuts a subscriber off and names what it missed in one gap per run when even run:end cannot fit', () => {
    const queue = new SubscriberQueue({ capacity: 2 });
    const event = numbered();
    queue.offer(event(bodies.runStart(), 'a'));
    queue.offer(event(bodies.runStart(), 'b'));
    queue.offer(event(bodies.delta(), 'a'));
    queue.offer(event(bodies.runEnd(), 'a'));
    queue.offer(event(bodies.runEnd(), 'b'));
    expect(queue.take()?.runId).toBe('a');
    queue.offer(event(bodies.runStart(), 'c'));
    const rest = drain(queue);
    expect(
      rest.map((item) => (item.type === 'gap' ? `${item.runId} gap ${item.fromSeq}-${item.toSeq}` : item.type)),
    ).toMatchInlineSnapshot(`
      [
        "run:start",
        "a gap 3-3",
        "b gap 2-2",
        "c gap 1-1",
      ]
    `);
    queue.offer(event(bodies.runEnd(), 'c'));
    expect(drain(queue).map((item) => `${item.runId}:${item.seq}:${item.type}`)).toEqual(['c:2:run:end']);
    expect(queue.stats()).toMatchObject({ dropped: 1, lost: 3, gaps: 3, maxQueued: 2 });
  });

  it('never holds more than its capacity, delivers each run in seq order and never loses a kept event silently', () => {
    const kinds = fc.constantFrom('delta', 'heartbeat', 'toolStart', 'runStart', 'runEnd', 'take', 'take', 'take');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(kinds, fc.constantFrom('a', 'b', 'c')), { maxLength: 300 }),
        (capacity, script) => {
          const queue = new SubscriberQueue({ capacity });
          const event = numbered();
          const kept: AgentEvent[] = [];
          const taken: AgentEvent[] = [];
          for (const [kind, runId] of script) {
            if (kind === 'take') {
              const next = queue.take();
              if (next !== undefined) taken.push(next);
            } else {
              const offered = event(bodies[kind](), runId);
              if (deliveryClass(offered) === 'keep') kept.push(offered);
              queue.offer(offered);
            }
            expect(queue.stats().queued).toBeLessThanOrEqual(capacity);
          }
          taken.push(...drain(queue));
          expect(queue.stats().maxQueued).toBeLessThanOrEqual(capacity);
          for (const runId of ['a', 'b', 'c']) {
            const seqs = taken.filter((item) => item.runId === runId).map((item) => item.seq);
            expect(seqs).toEqual([...seqs].sort((left, right) => left - right));
            expect(new Set(seqs).size).toBe(seqs.length);
          }
          for (const event of kept) {
            const delivered = taken.some((item) => item.runId === event.runId && item.seq === event.seq);
            const covered = taken.some(
              (item) =>
                item.type === 'gap' &&
                item.runId === event.runId &&
                item.fromSeq <= event.seq &&
                event.seq <= item.toSeq,
            );
            expect(delivered || covered).toBe(true);
          }
        },
      ),
    );
  });

  it('keeps every delta character when only deltas and kept events compete for room', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.oneof(fc.string({ minLength: 1, maxLength: 3 }), fc.constant('<take>')), { maxLength: 200 }),
        (capacity, script) => {
          const queue = new SubscriberQueue({ capacity });
          const event = numbered();
          const taken: AgentEvent[] = [];
          queue.offer(event(bodies.runStart()));
          let sent = '';
          for (const item of script) {
            if (item === '<take>') {
              const next = queue.take();
              if (next !== undefined) taken.push(next);
            } else {
              sent += item;
              queue.offer(event(bodies.delta(item)));
            }
          }
          taken.push(...drain(queue));
          const received = taken.map((item) => (item.type === 'model:delta' ? item.text : '')).join('');
          expect(received).toBe(sent);
        },
      ),
    );
  });
});
