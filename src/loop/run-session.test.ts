import { describe, expect, it, vi } from 'vitest';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import { EventBus } from '../events/event-bus.js';
import { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runSession } from './run-session.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

function setup() {
  const store = openSqliteStore({ path: ':memory:' });
  const sessions = new SqliteSessionStore({ database: store.database });
  const executed: string[] = [];
  const tools = new ToolRegistry().register(
    defineTool<{ order_id: string }>({
      name: 'query_order',
      description: 'Look up an order. Not for shipments: use track_shipment.',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      sideEffect: 'read',
      execute: ({ order_id }) => {
        executed.push(order_id);
        return { order_id, status: 'shipped' };
      },
    }),
  );
  return { store, sessions, tools, executed };
}

describe('runSession', () => {
  it('commits every step, so the session holds the whole conversation and its counters', async () => {
    const { sessions, tools } = setup();
    const session = await sessions.create({});
    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'Shipped.' },
    ]);
    const result = await runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Where is SO20260901?',
      model,
      tools,
    });
    expect(result.stopReason).toBe('completed');
    const stored = await sessions.load(session.id);
    expect(stored?.messages).toEqual(result.messages);
    expect(stored?.stepCount).toBe(2);
    expect(stored?.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    expect(stored?.status).toBe('idle');
    expect(stored?.activeRun).toBeUndefined();

    const again = await runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Thanks',
      model: sequenceModel([{ role: 'assistant', content: 'You are welcome.' }]),
      tools,
    });
    expect(again.messages).toHaveLength(6);
    expect((await sessions.load(session.id))?.stepCount).toBe(3);
  });

  it('starts the new run under the runId the caller gives, so the caller knows it before run:start', async () => {
    const { sessions, tools } = setup();
    const session = await sessions.create({});
    const events = new EventBus();
    const started: string[] = [];
    events.subscribe((event) => {
      if (event.type === 'run:start') started.push(event.runId);
    });
    const result = await runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Hello',
      runId: 'run_chosen_by_caller',
      model: sequenceModel([{ role: 'assistant', content: 'Hi.' }]),
      tools,
      events,
    });
    expect(result.runId).toBe('run_chosen_by_caller');
    expect(started).toEqual(['run_chosen_by_caller']);
  });

  it('resumes an interrupted run: answers its pending calls once, keeps its counters, and goes on', async () => {
    const { sessions, tools, executed } = setup();
    const session = await sessions.create({});
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
    const journal = sessions.journal({ sessionId: session.id });
    const pending = calls(['query_order', { order_id: 'SO20260901' }], ['query_order', { order_id: 'SO20260902' }]);
    await journal.commitStep({
      runId: 'run-1',
      sessionId: session.id,
      appended: [{ role: 'user', content: 'Two orders please' }, pending],
      steps: 1,
      usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
    });
    const firstCall = pending.role === 'assistant' ? pending.tool_calls?.[0] : undefined;
    await journal.recordToolResult('run-1', {
      toolCallId: firstCall?.id ?? '',
      tool: 'query_order',
      content: '{"order_id":"SO20260901","status":"shipped"}',
      outcome: { ok: true, data: { order_id: 'SO20260901', status: 'shipped' } },
    });

    const model = sequenceModel([{ role: 'assistant', content: 'Both shipped.' }]);
    const result = await runSession({
      sessions,
      sessionId: session.id,
      resume: true,
      model,
      tools,
      limits: { tokenBudget: 200 },
    });
    expect(result.stopReason).toBe('completed');
    expect(executed).toEqual(['SO20260902']);
    expect(result.steps).toBe(2);
    expect(result.usage.totalTokens).toBe(135);
    const stored = await sessions.load(session.id);
    expect(stored?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(stored?.stepCount).toBe(2);
  });

  it('counts a budget spent before a restart after it', async () => {
    const { sessions, tools } = setup();
    const session = await sessions.create({});
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
    await sessions.journal({ sessionId: session.id }).commitStep({
      runId: 'run-1',
      sessionId: session.id,
      appended: [{ role: 'user', content: 'Hi' }],
      steps: 3,
      usage: { inputTokens: 900, outputTokens: 100, totalTokens: 1000 },
    });
    const model = sequenceModel([{ role: 'assistant', content: 'never asked' }]);
    const result = await runSession({
      sessions,
      sessionId: session.id,
      resume: true,
      model,
      tools,
      limits: { tokenBudget: 1000 },
    });
    expect(result.stopReason).toBe('token_budget');
    expect(model.requests).toHaveLength(0);
  });

  it('names a run it began under an id of its own as new to the journal (no results to read), and no other run', async () => {
    const { sessions, tools } = setup();
    const session = await sessions.create({});
    const journal = vi.spyOn(sessions, 'journal');
    const answer = () => sequenceModel([{ role: 'assistant', content: 'Hi.' }]);
    const fresh = await runSession({ sessions, sessionId: session.id, userMessage: 'Hi', model: answer(), tools });
    // A caller's id may name the session's active run, which beginRun resumes with the results it stored.
    await runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Hi',
      runId: 'run-given',
      model: answer(),
      tools,
    });
    await sessions.beginRun({ sessionId: session.id, runId: 'run-interrupted' });
    await runSession({ sessions, sessionId: session.id, resume: true, model: answer(), tools });
    expect(journal.mock.calls.map(([request]) => request.newRunId)).toEqual([fresh.runId, undefined, undefined]);
  });

  it('refuses a second run while one is active, naming it', async () => {
    const { sessions, tools } = setup();
    const session = await sessions.create({});
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
    const attempt = runSession({ sessions, sessionId: session.id, userMessage: 'Hi', model: sequenceModel([]), tools });
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) => SessionConflictError.isInstance(error) && error.activeRunId === 'run-1',
    );
  });

  it('ends the run when the loop refuses to start, so the session is not left busy', async () => {
    const { sessions, tools } = setup();
    const session = await sessions.create({});
    const attempt = runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Hi',
      model: sequenceModel([]),
      tools,
      limits: { costBudget: 1 },
    });
    await expect(attempt).rejects.toThrow('limits.costBudget needs a price table');
    const stored = await sessions.load(session.id);
    expect(stored?.activeRun).toBeUndefined();
    expect(stored?.status).toBe('idle');
  });

  it('keeps counting repeated calls across a restart', async () => {
    const { sessions, tools, executed } = setup();
    const session = await sessions.create({});
    await sessions.beginRun({ sessionId: session.id, runId: 'run-1' });
    const journal = sessions.journal({ sessionId: session.id });
    const same = () => calls(['query_order', { order_id: 'SO20260901' }]);
    const appended = [];
    let steps = 0;
    await journal.commitStep({
      runId: 'run-1',
      sessionId: session.id,
      appended: [{ role: 'user', content: 'Where is it?' }],
      steps,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
    for (let index = 0; index < 2; index += 1) {
      const message = same();
      const call = message.role === 'assistant' ? message.tool_calls?.[0] : undefined;
      if (call === undefined) throw new Error('expected a call');
      const content = '{"order_id":"SO20260901","status":"shipped"}';
      await journal.recordToolResult('run-1', {
        toolCallId: call.id,
        tool: 'query_order',
        content,
        outcome: { ok: true, data: { order_id: 'SO20260901', status: 'shipped' } },
      });
      steps += 1;
      appended.push(message, { role: 'tool' as const, tool_call_id: call.id, content });
    }
    await journal.commitStep({
      runId: 'run-1',
      sessionId: session.id,
      appended,
      steps,
      usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    });

    const model = sequenceModel([same(), { role: 'assistant', content: 'It shipped.' }]);
    const result = await runSession({ sessions, sessionId: session.id, resume: true, model, tools });
    expect(result.stopReason).toBe('repeated_call');
    expect(executed).toEqual([]);
  });
});
