import { afterEach, describe, expect, it } from 'vitest';
import { EngineReplayError } from '../errors/engine-replay-error.js';
import { createTierGate } from '../gate/tier-gate.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import type { Backend } from '../store/backend.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { type AdvanceRequest, advanceRun, type RunAdvance } from './advance-run.js';
import { type EngineStepRecords, memoryEngineStepRecords, type RecordedEntry } from './engine-step-records.js';
import type { DurableRunInput, EngineAgentOptions } from './run-in-engine.js';

const input: DurableRunInput = {
  runId: 'run-1',
  sessionId: 'session-1',
  principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
  messages: [{ role: 'user', content: 'Note gift wrap on SO20260902, then refund SO20260901.' }],
};

function shop(executed: string[]) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ order_id: string; note: string }>({
      name: 'add_order_note',
      description: 'Add a note to an order. Not to refund it: use refund_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' }, note: { type: 'string' } },
        required: ['order_id', 'note'],
      },
      sideEffect: 'reversible',
      idempotencyKey: ({ order_id, note }) => `note:${order_id}:${note}`,
      execute: ({ order_id }) => {
        executed.push(`note:${order_id}`);
        return { noted: true };
      },
    }),
  );
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'refund_order',
      description: 'Refund an order in full. Not to add a note: use add_order_note.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'irreversible',
      execute: ({ order_id }) => {
        executed.push(`refund:${order_id}`);
        return { refunded: true };
      },
    }),
  );
  return registry;
}

let backend: Backend | undefined;
afterEach(() => backend?.close());

function world() {
  backend = openSqliteBackend({ path: ':memory:' });
  const executed: string[] = [];
  const model = sequenceModel([
    calls(['add_order_note', { order_id: 'SO20260902', note: 'gift wrap' }]),
    calls(['refund_order', { order_id: 'SO20260901' }]),
    { role: 'assistant', content: 'Done.' },
  ]);
  const agent: EngineAgentOptions = {
    model,
    tools: shop(executed),
    gate: createTierGate({ policyVersion: 'shop-1' }),
    approvals: backend.approvals,
    idempotency: backend.idempotency,
    audit: backend.audit,
    log: backend.events,
    approvalWaitMs: 60_000,
  };
  return { backend, executed, model, agent, records: memoryEngineStepRecords() };
}

/** What a workflow does: advance until the run waits or ends, one request after the other. */
async function advanceUntilStill({
  agent,
  records,
  first,
}: {
  agent: EngineAgentOptions;
  records: EngineStepRecords;
  first: AdvanceRequest;
}): Promise<{ advances: RunAdvance[]; last: RunAdvance }> {
  const advances: RunAdvance[] = [];
  let request = first;
  for (;;) {
    const advance = await advanceRun({ engine: 'test', agent, records, request });
    advances.push(advance);
    if (advance.kind !== 'step') return { advances, last: advance };
    request = { runId: input.runId };
  }
}

describe('advanceRun', () => {
  it('runs one step per call, replaying the recorded ones without running them, and waits where a person decides', async () => {
    const { executed, model, agent, records, backend } = world();
    const { advances, last } = await advanceUntilStill({ agent, records, first: { runId: 'run-1', input } });
    expect(advances.map((advance) => (advance.kind === 'step' ? advance.name : advance.kind))).toEqual([
      'model:1',
      'tool:call_1',
      'model:2',
      'wait',
    ]);
    expect(executed).toEqual(['note:SO20260902']);
    expect(model.requests).toHaveLength(2);
    if (last.kind !== 'wait') throw new Error('a wait expected');
    expect(last.step?.name).toBe('tool:call_2');
    // The deadline less the time between the two clock reads the run recorded (a millisecond or so).
    expect(last.timeoutMs).toBeLessThanOrEqual(60_000);
    expect(last.timeoutMs).toBeGreaterThan(50_000);
    // Messages and tool results are in the records; the workflow only ever got names, positions and sizes.
    expect(JSON.stringify(advances)).not.toContain('gift wrap');
    const [pending] = await backend.approvals.listApprovals({ status: 'pending', runId: 'run-1' });
    if (pending === undefined) throw new Error('a pending approval expected');
    await backend.approvals.resolveApproval({ approvalId: pending.approvalId, decision: 'approve', approver: 'boss' });
    const woken = await advanceUntilStill({
      agent,
      records,
      first: { runId: 'run-1', wake: { position: last.position, signalled: true } },
    });
    expect(woken.last).toMatchObject({ kind: 'done', summary: { stopReason: 'completed', text: 'Done.' } });
    expect(executed).toEqual(['note:SO20260902', 'refund:SO20260901']);
    expect(model.requests).toHaveLength(3);
  });

  it('answers a retried call after the end from the records: nothing runs again', async () => {
    const { executed, model, agent, records } = world();
    const { last } = await advanceUntilStill({ agent, records, first: { runId: 'run-1', input } });
    if (last.kind !== 'wait') throw new Error('a wait expected');
    const ended = await advanceRun({
      engine: 'test',
      agent,
      records,
      request: { runId: 'run-1', wake: { position: last.position, signalled: false } },
    });
    expect(ended).toMatchObject({ kind: 'done', summary: { stopReason: 'awaiting_approval' } });
    // The activity's completion was lost, and the engine asks again: the same end, from the records.
    const again = await advanceRun({ engine: 'test', agent, records, request: { runId: 'run-1' } });
    if (again.kind !== 'done' || ended.kind !== 'done') throw new Error('the end expected');
    expect(again.summary).toEqual(ended.summary);
    expect(executed).toEqual(['note:SO20260902']);
    expect(model.requests).toHaveLength(2);
  });

  it('fails with engine_replay, running nothing, when the recorded steps no longer match the loop (a deploy changed them)', async () => {
    const { executed, model, agent, records } = world();
    await advanceRun({ engine: 'test', agent, records, request: { runId: 'run-1', input } });
    await advanceRun({ engine: 'test', agent, records, request: { runId: 'run-1' } });
    const recorded = await records.read('run-1');
    // The same record, as a build whose loop named its first model turn differently wrote it.
    const altered = recorded.map(
      (entry): RecordedEntry =>
        entry.kind === 'step' && entry.name === 'model:1' ? { ...entry, name: 'model:0' } : entry,
    );
    const other = memoryEngineStepRecords();
    for (const [position, entry] of altered.entries()) await other.write({ runId: 'run-1', position, entry });
    const before = { executed: [...executed], requests: model.requests.length };
    const failure = await advanceRun({ engine: 'test', agent, records: other, request: { runId: 'run-1' } }).catch(
      (error: unknown) => error,
    );
    expect(EngineReplayError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'engine_replay', recorded: 'step:model:0', asked: 'step:model:1' });
    expect({ executed, requests: model.requests.length }).toEqual(before);
  });

  it('refuses to start a run whose input was never recorded', async () => {
    const { agent, records } = world();
    await expect(advanceRun({ engine: 'test', agent, records, request: { runId: 'run-1' } })).rejects.toMatchObject({
      code: 'engine_replay',
      asked: 'the input',
    });
  });
});
