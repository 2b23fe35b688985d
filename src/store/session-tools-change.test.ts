import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findStaleToolNames, showSession } from '../cli/commands/sessions.js';
import type { ChatMessage } from '../core/chat-message.js';
import { runSession } from '../loop/run-session.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { SqliteSessionStore } from './sqlite/sqlite-session-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

const directory = mkdtempSync(join(tmpdir(), 'arbiter-tools-change-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const orderTool = (name: string) =>
  defineTool<{ order_id: string }>({
    name,
    description: 'Look up an order by number. Not for shipments: use track_shipment.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    sideEffect: 'read',
    execute: ({ order_id }) => ({ order_id, status: 'shipped' }),
  });

/** Version 1 of the application called its lookup `lookup_order`; version 2 renamed it `query_order`. */
const version1 = () => new ToolRegistry().register(orderTool('lookup_order'));
const version2 = () => new ToolRegistry().register(orderTool('query_order'));

function toolAnswer(messages: readonly ChatMessage[], callId: string | undefined): string | undefined {
  for (const message of messages)
    if (message.role === 'tool' && message.tool_call_id === callId) return message.content;
  return undefined;
}

describe('a session made under tools that changed since', () => {
  it('forks and keeps working: a call to the removed tool is answered with the current tools, and the model moves on', async () => {
    const store = openSqliteStore({ path: join(directory, 'fork.db') });
    const sessions = new SqliteSessionStore({ database: store.database });
    const session = await sessions.create({ sessionId: 'made-with-v1' });
    await runSession({
      sessions,
      sessionId: session.id,
      userMessage: 'Where is SO20260901?',
      model: sequenceModel([
        calls(['lookup_order', { order_id: 'SO20260901' }]),
        { role: 'assistant', content: 'Shipped.' },
      ]),
      tools: version1(),
    });
    const fork = await sessions.fork({ sessionId: session.id });

    const stale = calls(['lookup_order', { order_id: 'SO20260902' }]);
    const current = calls(['query_order', { order_id: 'SO20260902' }]);
    const model = sequenceModel([stale, current, { role: 'assistant', content: 'SO20260902 shipped too.' }]);
    const result = await runSession({
      sessions,
      sessionId: fork.id,
      userMessage: 'And SO20260902?',
      model,
      tools: version2(),
    });
    expect(result.stopReason).toBe('completed');
    const staleId = stale.role === 'assistant' ? stale.tool_calls?.[0]?.id : undefined;
    expect(toolAnswer(result.messages, staleId)).toMatch(/lookup_order.*no tool with this name.*query_order/s);
    // The old history went to the model as it was, with the new tools mounted.
    expect(model.requests[0]?.messages.slice(0, 4)).toEqual(fork.messages);
    expect(model.requests[0]?.tools.map((spec) => spec.function.name)).toEqual(['query_order']);
    expect(findStaleToolNames({ messages: result.messages, toolNames: version2().names })).toEqual([
      { name: 'lookup_order', calls: 2, messages: [1, 5] },
    ]);
    store.close();
  });

  it('resumes a run interrupted before a call to the removed tool was answered', async () => {
    const store = openSqliteStore({ path: join(directory, 'resume.db') });
    const sessions = new SqliteSessionStore({ database: store.database });
    const session = await sessions.create({ sessionId: 'interrupted' });
    const pending = calls(['lookup_order', { order_id: 'SO20260901' }]);
    await sessions.beginRun({
      sessionId: session.id,
      runId: 'run-1',
      messages: [{ role: 'user', content: 'Where is SO20260901?' }],
    });
    await sessions.journal({ sessionId: session.id }).commitStep({
      runId: 'run-1',
      sessionId: session.id,
      appended: [pending],
      steps: 1,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });

    const model = sequenceModel([
      calls(['query_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'Shipped.' },
    ]);
    const result = await runSession({ sessions, sessionId: session.id, resume: true, model, tools: version2() });
    expect(result.stopReason).toBe('completed');
    const pendingId = pending.role === 'assistant' ? pending.tool_calls?.[0]?.id : undefined;
    expect(toolAnswer(result.messages, pendingId)).toMatch(/no tool with this name.*query_order/s);
    expect(result.steps).toBe(3);
    store.close();
  });

  it('is flagged by `sessions show` given the current tools', async () => {
    const dataDirectory = join(directory, 'cli');
    const store = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
    const sessions = new SqliteSessionStore({ database: store.database });
    await sessions.create({ sessionId: 'old' });
    await sessions.append({
      sessionId: 'old',
      messages: [
        { role: 'user', content: 'Where is SO20260901?' },
        calls(['lookup_order', { order_id: 'SO20260901' }]),
      ],
    });
    store.close();
    const result = await showSession({ dataDirectory, sessionId: 'old', toolNames: version2().names });
    expect(result.stdout.filter((line) => line.includes('stale'))).toEqual([
      expect.stringMatching(/^ {3}#1 assistant {2}calls lookup_order .* \[stale: no longer registered\]$/),
      'stale     lookup_order (1 call): no longer registered; the loop answers such calls with the current tools',
    ]);
  });
});
