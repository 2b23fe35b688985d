import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { createMemoryJournal } from '../core/run-journal.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runAgent } from './run-agent.js';
import { calls, sequenceModel } from './test-support/sequence-model.js';

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

function noteRegistry(executed: unknown[]) {
  return new ToolRegistry().register(
    defineTool<{ order_id: string; note?: string; tenant_id?: string; user_id?: string }>({
      name: 'add_order_note',
      description: 'Add a note to an order. Not for refunds: use apply_refund.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string' },
          note: { type: 'string', minLength: 1 },
          tenant_id: { type: 'string', description: "The customer's shop" },
          user_id: { type: 'string', description: 'The customer' },
        },
        required: ['order_id', 'tenant_id', 'user_id'],
        additionalProperties: false,
      },
      sideEffect: 'reversible',
      boundParameters: { tenant_id: 'tenantId', user_id: 'userId' },
      execute: (args) => {
        executed.push(args);
        return { ok: true };
      },
    }),
  );
}

/** A run that already made the same call twice (both recorded) and was cut off before its third. */
async function interruptedRun(args: Record<string, unknown>) {
  const journal = createMemoryJournal();
  const runId = 'run_replay';
  const messages: ChatMessage[] = [{ role: 'user', content: 'Add a note to SO20260901.' }];
  for (let index = 0; index < 2; index += 1) {
    const turn = calls(['add_order_note', args]);
    const id = turn.tool_calls?.[0]?.id ?? '';
    const content = JSON.stringify({ ok: true });
    messages.push(turn, { role: 'tool', tool_call_id: id, content });
    await journal.recordToolResult(runId, {
      toolCallId: id,
      tool: 'add_order_note',
      content,
      outcome: { ok: true, data: { ok: true } },
    });
  }
  messages.push(calls(['add_order_note', args]));
  return { journal, runId, messages };
}

describe('replayBrakes', () => {
  it('counts a resumed call with a bound parameter the model sent as the same call it made before', async () => {
    const executed: unknown[] = [];
    const { journal, runId, messages } = await interruptedRun({ order_id: 'SO20260901', user_id: 'C9999' });
    const result = await runAgent({
      model: sequenceModel([{ role: 'assistant', content: 'Noted.' }]),
      tools: noteRegistry(executed),
      messages,
      principal,
      runId,
      journal,
      resume: { steps: 3, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
    });
    expect(executed).toEqual([]);
    expect(result.stopReason).toBe('repeated_call');
  });

  it('counts a resumed call with a strict-mode null as the same call it made before', async () => {
    const executed: unknown[] = [];
    const { journal, runId, messages } = await interruptedRun({ order_id: 'SO20260901', note: null });
    const model = { ...sequenceModel([{ role: 'assistant', content: 'Noted.' }]), strictTools: true };
    const result = await runAgent({
      model,
      tools: noteRegistry(executed),
      messages,
      principal,
      runId,
      journal,
      resume: { steps: 3, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
    });
    expect(executed).toEqual([]);
    expect(result.stopReason).toBe('repeated_call');
  });

  it('still runs a resumed call that differs from the recorded ones', async () => {
    const executed: unknown[] = [];
    const { journal, runId, messages } = await interruptedRun({ order_id: 'SO20260901', user_id: 'C9999' });
    messages.pop();
    messages.push(calls(['add_order_note', { order_id: 'SO20260902' }]));
    const result = await runAgent({
      model: sequenceModel([{ role: 'assistant', content: 'Noted.' }]),
      tools: noteRegistry(executed),
      messages,
      principal,
      runId,
      journal,
      resume: { steps: 3, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
    });
    expect(executed).toEqual([{ order_id: 'SO20260902', tenant_id: 'shop', user_id: 'C1001' }]);
    expect(result.stopReason).toBe('completed');
  });
});
