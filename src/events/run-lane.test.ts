import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { RunLane } from './run-lane.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const delta = (text: string, step = 1): AgentEventBody => ({ type: 'model:delta', step, text });

/** Records `body` as the emitter does, with its envelope. */
function record(lane: RunLane, body: AgentEventBody, seq: number, at: number): boolean {
  return lane.record(body, { runId: lane.runId, seq, at, ...body } as AgentEvent);
}

describe('RunLane', () => {
  it('records deltas of the parked step, heartbeats and progress, and refuses kept events and other steps', () => {
    const lane = new RunLane('r1');
    expect(lane.park(1)).toBe(true);
    expect(record(lane, delta('Hel'), 5, 100)).toBe(true);
    expect(record(lane, { type: 'heartbeat' }, 6, 101)).toBe(true);
    expect(record(lane, { type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order' }, 7, 102)).toBe(true);
    expect(record(lane, delta('lo'), 8, 103)).toBe(true);
    expect(record(lane, delta('next', 2), 9, 104)).toBe(false);
    expect(record(lane, { type: 'run:end', stopReason: 'completed', steps: 1, usage, durationMs: 1 }, 9, 104)).toBe(
      false,
    );
    expect(lane).toMatchObject({ deltas: 2, dropped: 2, lastDeltaSeq: 8, lastDeltaAt: 103 });
    expect(lane.textFrom(0)).toBe('Hello');
    expect(lane.textFrom(1)).toBe('lo');
  });

  it('parks queues of one step only, and lets the texts go once the last one leaves', () => {
    const lane = new RunLane('r1');
    expect(lane.park(1)).toBe(true);
    expect(lane.park(2)).toBe(false);
    expect(lane.park(1)).toBe(true);
    record(lane, delta('a'), 2, 0);
    const start = lane.deltas;
    record(lane, delta('b'), 3, 0);
    expect(lane.textFrom(start)).toBe('b');
    lane.leave();
    expect(lane.textFrom(start)).toBe('b');
    lane.leave();
    expect(lane.parked).toBe(0);
    expect(lane.deltas).toBe(0);
    expect(lane.park(2)).toBe(true);
    record(lane, delta('c', 2), 4, 0);
    expect(lane.textFrom(0)).toBe('c');
  });
});
