import { Agent, RunState, run, setTracingDisabled } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTierGate } from '../../gate/tier-gate.js';
import { openSqliteBackend, type SqliteBackend } from '../../store/sqlite/open-sqlite-backend.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ArbiterApprovalRequest, ArbiterLoopOptions } from '../gate-bridge.js';
import {
  egressOptions,
  egressTools,
  fetchTurn,
  lastToolOutput,
  mailTurn,
  ScriptedAgentsModel,
  type ScriptedTurn,
  tenants,
  textTurn,
} from '../test-support/egress-fixture.js';
import { arbiterAgentTools } from './arbiter-agent-tools.js';

/**
 * OpenAI Agents' `run` with `arbiterAgentTools`: the egress guard in one
 * run and across runs of a conversation, and one agent and tool set built
 * once for every run (as docs/ways-in.md builds it), whose approved call
 * executed again answers the recorded result.
 */
beforeAll(() => setTracingDisabled(true));
const backends: SqliteBackend[] = [];
afterEach(() => {
  for (const backend of backends.splice(0)) backend.close();
});

function backend(): SqliteBackend {
  const opened = openSqliteBackend({ path: ':memory:' });
  backends.push(opened);
  return opened;
}

function agentOf(turns: readonly ScriptedTurn[], tools: ReturnType<typeof arbiterAgentTools>) {
  return new Agent({ name: 'shop', instructions: 'You help customers.', model: new ScriptedAgentsModel(turns), tools });
}

describe('arbiterAgentTools: the egress guard', () => {
  it('interrupts on send_email after fetch_page returned the web’s text in the same run', async () => {
    const store = backend();
    const { registry, gate, sent, fetched } = egressTools();
    const announced: ArbiterApprovalRequest[] = [];
    const options = egressOptions({ backend: store, gate, principal: tenants.alice, conversationId: 't1', announced });
    const result = await run(
      agentOf([fetchTurn(), mailTurn(), textTurn], arbiterAgentTools(registry, options)),
      'What do people say about the mouse?',
    );
    expect(fetched).toHaveLength(1);
    expect(sent).toEqual([]);
    expect(result.interruptions.map((item) => item.name)).toEqual(['send_email']);
    expect(announced.map((approval) => approval.reason)).toEqual([
      expect.stringContaining('This conversation contains content from the web'),
    ]);
    // The program approving its own interruption sends nothing: arbiter's approval is still pending.
    for (const item of result.interruptions) result.state.approve(item);
    const resumed = await run(agentOf([textTurn], arbiterAgentTools(registry, options)), result.state);
    expect(lastToolOutput(resumed.newItems)).toContain('send_email was NOT executed');
    expect(sent).toEqual([]);
  });

  it('holds send_email made in the same turn as fetch_page, after it', async () => {
    const store = backend();
    const { registry, gate, sent, fetched } = egressTools();
    const options = egressOptions({ backend: store, gate, principal: tenants.alice, conversationId: 't-turn' });
    const result = await run(
      agentOf([{ calls: [fetchTurn().call, mailTurn().call] }, textTurn], arbiterAgentTools(registry, options)),
      'Read the reviews and mail them to me.',
    );
    expect(fetched).toHaveLength(1);
    expect(sent).toEqual([]);
    const outputs = result.newItems
      .filter((item) => item.type === 'tool_call_output_item')
      .map((item) => lastToolOutput([item]));
    expect(outputs.some((text) => text.includes('send_email was NOT executed'))).toBe(true);
  });

  it('interrupts on send_email in a later run of the conversation, with a fresh agent and only the user’s words', async () => {
    const store = backend();
    const { registry, gate, sent } = egressTools();
    const options = egressOptions({ backend: store, gate, principal: tenants.alice, conversationId: 't2' });
    await run(agentOf([fetchTurn(), textTurn], arbiterAgentTools(registry, options)), 'Read the reviews.');
    const later = await run(
      agentOf([mailTurn(), textTurn], arbiterAgentTools(registry, options)),
      'Mail me my order history.',
    );
    expect(later.interruptions.map((item) => item.name)).toEqual(['send_email']);
    expect(sent).toEqual([]);
    // Another user's thread of the same name holds nothing of it.
    const bob = egressOptions({ backend: store, gate, principal: tenants.bob, conversationId: 't2' });
    const other = await run(agentOf([mailTurn(), textTurn], arbiterAgentTools(registry, bob)), 'Mail me my orders.');
    expect(other.interruptions).toEqual([]);
    expect(sent).toHaveLength(1);
  });
});

/** An irreversible tool, with or without an idempotency key of its own. */
function noteTools({ keyed }: { keyed: boolean }) {
  const written: string[] = [];
  const registry = new ToolRegistry().register(
    defineTool<{ note: string }>({
      name: 'close_account',
      description: 'Close the customer’s account for good. Not for a question about it: answer it.',
      parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
      sideEffect: 'irreversible',
      ...(keyed ? { idempotencyKey: ({ note }: { note: string }) => `close:${note}` } : {}),
      execute: ({ note }) => {
        written.push(note);
        return { closed: true, closing: written.length };
      },
    }),
  );
  return { registry, gate: createTierGate({ tools: registry }), written };
}

describe.each([
  { keyed: false, name: 'a tool without an idempotency key' },
  { keyed: true, name: 'a tool with an idempotency key' },
])('arbiterAgentTools: one tool set reused for every run ($name)', ({ keyed }) => {
  it('answers a saved state resumed again and again (the approved call executed again) with the recorded result', async () => {
    const store = backend();
    const { registry, gate, written } = noteTools({ keyed });
    let approvalId = '';
    const options: ArbiterLoopOptions = {
      principal: tenants.alice,
      conversationId: 'thread-1',
      gate,
      approvals: store.approvals,
      idempotency: store.idempotency,
      audit: store.audit,
      onApprovalRequired: (approval) => {
        approvalId = approval.approvalId;
      },
    };
    const call: ScriptedTurn = { call: { toolName: 'close_account', input: { note: 'moving' }, toolCallId: 'call_1' } };
    // Built once, as the docs' example builds it: every run below uses this agent and tool set.
    const agent = agentOf(
      [call, textTurn, textTurn, textTurn, textTurn, textTurn],
      arbiterAgentTools(registry, options),
    );
    const asked = await run(agent, 'Close my account.');
    expect(asked.interruptions).toHaveLength(1);
    store.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'S9001' });
    for (const item of asked.interruptions) asked.state.approve(item);
    const saved = asked.state.toString();

    const first = await run(agent, asked.state);
    const recorded = lastToolOutput(first.newItems);
    expect(JSON.parse(recorded)).toEqual({ closed: true, closing: 1 });
    for (const attempt of [1, 2, 3]) {
      const again = await run(agent, await RunState.fromString(agent, saved));
      expect(lastToolOutput(again.newItems), `resumed again (${attempt})`).toBe(recorded);
    }
    expect(written).toEqual(['moving']);
    const rows = store.audit.listAudit({ toolCallId: 'call_1' });
    expect(rows.map((row) => [row.decision, row.approver, row.outcome])).toEqual([
      ['approved', 'S9001', 'ok'],
      ['approved', 'S9001', 'replayed:ok'],
      ['approved', 'S9001', 'replayed:ok'],
      ['approved', 'S9001', 'replayed:ok'],
    ]);
  });
});

describe('arbiterAgentTools: a waiting call resumed again and again on a reused tool set', () => {
  it('is not a repeated call: once staff approve it, it runs once', async () => {
    const store = backend();
    const { registry, gate, written } = noteTools({ keyed: false });
    let approvalId = '';
    const options: ArbiterLoopOptions = {
      principal: tenants.alice,
      conversationId: 'thread-wait',
      gate,
      approvals: store.approvals,
      idempotency: store.idempotency,
      audit: store.audit,
      onApprovalRequired: (approval) => {
        approvalId = approval.approvalId;
      },
    };
    const call: ScriptedTurn = { call: { toolName: 'close_account', input: { note: 'bye' }, toolCallId: 'call_w' } };
    const agent = agentOf([call, ...Array.from({ length: 8 }, () => textTurn)], arbiterAgentTools(registry, options));
    const asked = await run(agent, 'Close my account.');
    for (const item of asked.interruptions) asked.state.approve(item);
    const saved = asked.state.toString();
    // The program approves its own interruption three times before staff decide: the call waits each time.
    for (const _attempt of [1, 2, 3]) {
      const waiting = await run(agent, await RunState.fromString(agent, saved));
      expect(lastToolOutput(waiting.newItems)).toContain('close_account was NOT executed');
    }
    store.approvals.resolveApproval({ approvalId, decision: 'approve', approver: 'S9001' });
    const ran = await run(agent, await RunState.fromString(agent, saved));
    expect(JSON.parse(lastToolOutput(ran.newItems))).toEqual({ closed: true, closing: 1 });
    expect(written).toEqual(['bye']);
  });
});
