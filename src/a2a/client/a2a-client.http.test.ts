import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeSnippets } from '../../../test/package/readme-snippets.js';
import { parseServeFlags, serveOptions } from '../../cli/commands/serve.js';
import { emptyCallHistory } from '../../core/call-history.js';
import type { Principal } from '../../core/principal.js';
import { createTierGate } from '../../gate/tier-gate.js';
import { resumeAfterApproval } from '../../loop/resume-after-approval.js';
import { runAgent } from '../../loop/run-agent.js';
import { runSession } from '../../loop/run-session.js';
import { parseMcpConfig, readMcpConfig } from '../../mcp/client/mcp-server-config.js';
import { recordingBus, scriptedCalls, toolMessages } from '../../mcp/client/test-support/mcp-harness.js';
import { ScriptedModel } from '../../models/scripted-model.js';
import { startTestServer, type TestServer, testTokens } from '../../server/test-support/test-server.js';
import { SqliteApprovalBroker } from '../../store/sqlite/sqlite-approval-broker.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../../store/sqlite/sqlite-idempotency-store.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolContext } from '../../tools/tool-types.js';
import { parseA2aConfig, readA2aConfig } from './a2a-agent-config.js';
import type { A2aAgentMount } from './a2a-agent-mount.js';
import { a2aMessageId } from './a2a-message-id.js';
import { mountA2aAgents } from './mount-a2a-agents.js';

// Arbiter B: a real `arbiter serve` (the shop, its scripted model, its gate) on loopback, an A2A agent.
// Arbiter A: a second runtime that mounts B from the same config file as MCP servers and calls it
// through the official @a2a-js/sdk client, behind A's own gate, approvals, idempotency and audit.
let remote: TestServer;
let directory: string;
let store: SqliteStore;
const caller: Principal = { tenantId: 'acme', userId: 'agent-desk', roles: [] };
const otherTenant: Principal = { tenantId: 'other', userId: 'agent-desk', roles: [] };
const orderQuestion = { message: 'Where is my order SO20260901?' };
const refund = { message: 'My teapot arrived cracked, I want a refund.' };
/** The config's own syntax for an environment variable, as a user writes it in the file. */
const tokenVariable = ['$', '{BILLING_TOKEN}'].join('');

beforeAll(async () => {
  remote = await startTestServer();
  directory = mkdtempSync(join(tmpdir(), 'arbiter-a2a-client-'));
  store = openSqliteStore({ path: ':memory:' });
}, 30_000);
afterAll(async () => {
  await remote.stop();
  store.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A config file holding the agent (and an MCP server's entry beside it, as `serve --mcp` reads it). */
function configFile(entries: readonly unknown[]): string {
  const file = join(directory, `tools-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

async function mountBilling(settings: Record<string, unknown> = {}) {
  const file = configFile([
    { name: 'files', command: 'mcp-server-filesystem', args: ['/srv'] },
    {
      name: 'billing',
      agentCard: `${remote.url}/.well-known/agent-card.json`,
      bearer: tokenVariable,
      ...settings,
    },
  ]);
  const environment = { BILLING_TOKEN: testTokens.alice };
  expect((await readMcpConfig({ file, environment })).map((server) => server.name)).toEqual(['files']);
  const registry = new ToolRegistry();
  const mounts = await mountA2aAgents({ agents: await readA2aConfig({ file, environment }), registry });
  return { registry, mount: mounts.agents[0] as A2aAgentMount };
}

function stores() {
  const database = store.database;
  return {
    sessions: new SqliteSessionStore({ database }),
    broker: new SqliteApprovalBroker({ database }),
    idempotency: new SqliteIdempotencyStore({ database }),
    audit: new SqliteAuditLog({ database }),
  };
}

function directContext(principal: Principal, progress: unknown[] = []): ToolContext {
  return {
    runId: 'run_direct',
    sessionId: undefined,
    step: 1,
    toolCallId: 'call_1',
    principal,
    signal: new AbortController().signal,
    locale: 'en',
    history: emptyCallHistory,
    reportProgress: (update) => progress.push(update),
  };
}

/** B's A2A task sessions (and their runs): what B did on A's behalf. */
async function remoteRuns(): Promise<number> {
  const sessions = await remote.server.sessions.list({ tenantId: 'shop', userId: 'C1001', limit: 1000 });
  let runs = 0;
  for (const session of sessions.filter((summary) => summary.id.startsWith('a2a_'))) {
    runs += (await remote.server.runs.listForSession(session.id)).length;
  }
  return runs;
}

describe('A2A client: another arbiter mounted from its Agent Card, called as gated tools', () => {
  it('mounts each skill as <name>_<skill>, irreversible unless a trusted agent is configured otherwise, with a fingerprint', async () => {
    const { registry, mount } = await mountBilling({ skills: { query_order: { sideEffect: 'read' } } });
    expect(registry.names).toContain('billing_query_order');
    expect(registry.names).toContain('billing_apply_refund');
    const query = mount.skills.find((skill) => skill.skillId === 'query_order');
    // An untrusted agent's config cannot lower the tier.
    expect(query?.sideEffect).toBe('irreversible');
    expect(query?.notes).toEqual(['configured tier "read" ignored: the agent is not trusted']);
    expect(query?.definition.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(query?.definition.untrustedOutput).toBe('A2A agent billing');
    expect(query?.definition.parameters).toMatchObject({ required: ['message'] });
    const trusted = await mountBilling({ trusted: true, skills: { query_order: { sideEffect: 'read' } } });
    const readable = trusted.mount.skills.find((skill) => skill.skillId === 'query_order');
    expect(readable?.sideEffect).toBe('read');
    expect(readable?.definition.untrustedOutput).toBeUndefined();
    // Another tier is another tool to the gate.
    expect(readable?.fingerprint).not.toBe(query?.fingerprint);
    // The same card mounted again: the same fingerprint.
    const again = await mountBilling({ skills: { query_order: { sideEffect: 'read' } } });
    expect(again.mount.skills.find((skill) => skill.skillId === 'query_order')?.fingerprint).toBe(query?.fingerprint);
    const disabled = await mountBilling({ skills: { apply_refund: { disabled: true } } });
    expect(disabled.registry.names).not.toContain('billing_apply_refund');
  });

  it('runs a full task through the client: the answer is the result, status updates are progress, the call is audited', async () => {
    const { registry } = await mountBilling({ trusted: true, skills: { query_order: { sideEffect: 'read' } } });
    const { audit } = stores();
    const { events, seen } = recordingBus();
    const result = await runAgent({
      model: scriptedCalls({ name: 'billing_query_order', arguments: orderQuestion }),
      tools: registry,
      messages: [{ role: 'user', content: 'ask billing' }],
      principal: caller,
      gate: createTierGate({ tools: registry }),
      audit,
      events,
    });
    expect(result.stopReason).toBe('completed');
    const answer = JSON.parse(toolMessages(result.messages)[0] ?? '{}') as { answer: string; taskId: string };
    expect(answer.answer).toContain('SO20260901 is shipped');
    expect(answer.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const progress = seen.filter((event) => event.type === 'tool:progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.map((event) => (event.type === 'tool:progress' ? event.message : ''))).toContain('completed');
    audit.flush?.();
    const rows = audit.listAudit({ runId: result.runId });
    expect(rows.map((row) => [row.tool, row.sideEffect, row.decision, row.outcome])).toEqual([
      ['billing_query_order', 'read', 'allowed', 'ok'],
    ]);
  });

  it('holds an irreversible skill for approval in the caller: nothing is sent until a person approves', async () => {
    const { registry } = await mountBilling();
    const { sessions, broker, idempotency, audit } = stores();
    const before = await remoteRuns();
    const options = {
      model: new ScriptedModel({
        script: {
          name: 'a2a',
          turns: [{ steps: [{ call: { name: 'billing_query_order', arguments: orderQuestion } }, { say: 'done' }] }],
        },
      }),
      tools: registry,
      principal: caller,
      gate: createTierGate({ tools: registry }),
      idempotency,
      audit,
    };
    const session = await sessions.create({ principal: caller });
    const first = await runSession({
      ...options,
      sessions,
      sessionId: session.id,
      userMessage: 'ask billing',
      approvals: broker,
    });
    expect(first.stopReason).toBe('awaiting_approval');
    expect(await remoteRuns()).toBe(before);
    const [pending] = broker.listApprovals({ runId: first.runId });
    if (pending === undefined) throw new Error('no approval requested');
    expect(pending).toMatchObject({ tool: 'billing_query_order', status: 'pending' });
    const resumed = await resumeAfterApproval({
      ...options,
      sessions,
      broker,
      approvalId: pending.approvalId,
      decision: 'approve',
      approver: 'reviewer',
    });
    expect(resumed.status).toBe('resumed');
    expect(await remoteRuns()).toBe(before + 1);
    const messages = (await sessions.load(session.id))?.messages ?? [];
    expect(toolMessages(messages).at(-1)).toContain('SO20260901 is shipped');
  });

  it("reports a refund held by the remote agent's gate as a tool outcome; once approved there, the same call returns the refund", async () => {
    const { registry } = await mountBilling();
    const { idempotency, audit } = stores();
    // A's own gate lets the call through (approved here already); B's gate holds the refund for B's people.
    const call = () =>
      runAgent({
        model: scriptedCalls({ name: 'billing_apply_refund', arguments: refund }),
        tools: registry,
        messages: [{ role: 'user', content: 'refund it' }],
        principal: caller,
        gate: { check: () => ({ decision: 'allow', rule: 'test' }) },
        idempotency,
        audit,
      });
    const held = await call();
    expect(held.stopReason).toBe('completed');
    const told = toolMessages(held.messages)[0] ?? '';
    console.info(`\nthe caller's tool message for the held refund:\n${told}\n`);
    // Fatal (told once, not retried): the refund waits for a person on B's side, and the model can say so.
    expect(told).toMatch(/^Refused \(a2a_awaiting_approval\): The agent "billing" took the request/);
    const approvalId = /approval (ap_[0-9a-f]+)/.exec(told)?.[1];
    expect(approvalId).toBeDefined();
    // A person of B approves there.
    const decided = await remote.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    await remote.server.idle();
    const before = await remoteRuns();
    // The same call again: the same messageId, so B answers with the task it ran, not a second refund.
    const done = await call();
    const answer = JSON.parse(toolMessages(done.messages)[0] ?? '{}') as { answer?: string };
    console.info(`the same call after B's approval:\n${toolMessages(done.messages)[0]}\n`);
    expect(answer.answer).toContain('RF');
    expect(await remoteRuns()).toBe(before);
    audit.flush?.();
    expect(audit.listAudit({ runId: held.runId }).map((row) => [row.tool, row.outcome])).toEqual([
      ['billing_apply_refund', 'a2a_awaiting_approval'],
    ]);
  });

  it('sends a call retried after a crash with the same messageId, and the remote agent acts once', async () => {
    const { registry } = await mountBilling();
    const tool = registry.get('billing_query_order')?.definition;
    if (tool === undefined) throw new Error('not mounted');
    // A question of its own: the approval test above asked `orderQuestion` already, so B would answer with that task.
    const orderQuestion = { message: 'Where is my order SO20260901? I asked before.' };
    const key = tool.idempotencyKey?.(orderQuestion, directContext(caller)) ?? '';
    expect(a2aMessageId({ key, principal: caller })).toBe(a2aMessageId({ key, principal: caller }));
    // Another tenant's identical call is another message.
    expect(a2aMessageId({ key, principal: otherTenant })).not.toBe(a2aMessageId({ key, principal: caller }));
    const before = await remoteRuns();
    const progress: unknown[] = [];
    const first = (await tool.execute(orderQuestion, directContext(caller, progress))) as { taskId: string };
    // Had its answer been lost, reconciling asks B: this process saw B name the task (GetTask) …
    expect(await tool.reconcile?.(orderQuestion, key, directContext(caller))).toEqual({
      status: 'happened',
      result: first,
    });
    // … and a process that never saw it (the first died) lists the call's own context (ListTasks). B lists no
    // tasks at all, and silence is not proof: it cannot tell, so the call is not sent again and a person checks …
    const fresh = (await mountBilling()).registry.get('billing_query_order')?.definition;
    expect(await fresh?.reconcile?.(orderQuestion, key, directContext(caller))).toEqual({ status: 'unknown' });
    // … unless the entry says B deduplicates message ids (an arbiter agent does): then it is sent again.
    const told = (await mountBilling({ deduplicatesMessageIds: true })).registry.get('billing_query_order')?.definition;
    expect(await told?.reconcile?.(orderQuestion, key, directContext(caller))).toEqual({ status: 'not_happened' });
    // Sent again anyway (B deduplicates message ids): the same messageId gets the same task, not a second run.
    const second = (await tool.execute(orderQuestion, directContext(caller))) as { taskId: string };
    expect(second).toEqual(first);
    expect(await remoteRuns()).toBe(before + 1);
    expect(progress.length).toBeGreaterThan(0);
    // Tenant isolation: the other tenant's same call is a task of its own at B.
    const other = (await tool.execute(orderQuestion, directContext(otherTenant))) as { taskId: string };
    expect(other.taskId).not.toBe(first.taskId);
    expect(await remoteRuns()).toBe(before + 2);
  });

  it('is mounted by arbiter serve --mcp FILE next to the domain tools, and said so at start', async () => {
    const file = configFile([
      { name: 'billing', agentCard: `${remote.url}/.well-known/agent-card.json`, bearer: tokenVariable },
    ]);
    const { options, notices, close } = await serveOptions(
      parseServeFlags(['--data-dir', join(directory, 'serve'), '--mcp', file]),
      { BILLING_TOKEN: testTokens.alice },
    );
    try {
      const registry = new ToolRegistry();
      options.mountTools?.(registry);
      expect(registry.names).toContain('billing_apply_refund');
      expect(registry.get('billing_apply_refund')?.definition.sideEffect).toBe('irreversible');
      expect(notices.join('\n')).toMatch(/A2A agent "billing": \d+ tools mounted \(billing_/);
    } finally {
      await close();
    }
  });

  it("reads docs/a2a.md's config example: the MCP server for readMcpConfig, the agent for readA2aConfig", () => {
    const example = readmeSnippets({ file: 'docs/a2a.md' }).find(
      (snippet) => snippet.language === 'json' && snippet.code.includes('"agentCard"'),
    );
    if (example === undefined) throw new Error('docs/a2a.md has no JSON example with an agentCard');
    const value: unknown = JSON.parse(example.code);
    const environment = { BILLING_TOKEN: 'token-from-the-environment' };
    expect(parseMcpConfig({ value, file: 'README', environment }).map((server) => server.name)).toEqual(['files']);
    expect(parseA2aConfig({ value, file: 'README', environment })).toEqual([
      {
        name: 'billing',
        agentCard: 'https://billing.example.com/.well-known/agent-card.json',
        bearer: 'token-from-the-environment',
        timeoutMs: 60000,
        skills: { refund_status: { sideEffect: 'read' }, close_account: { disabled: true } },
      },
    ]);
  });

  it('refuses a bad config with one line naming the field', async () => {
    const problem = async (entry: Record<string, unknown>, environment: Record<string, string> = {}) => {
      const file = configFile([entry]);
      const error = await readA2aConfig({ file, environment }).catch((caught: unknown) => caught);
      return String((error as Error).message).replace(file, 'FILE');
    };
    const card = 'http://127.0.0.1:1/.well-known/agent-card.json';
    expect(
      await Promise.all([
        problem({ name: '1x', agentCard: card }),
        problem({ name: 'billing', agentCard: 'ftp://x' }),
        problem({ name: 'billing', agentCard: card, bearer: ['$', '{MISSING}'].join('') }),
        problem({ name: 'billing', agentCard: card, tools: {} }),
        problem({ name: 'billing', agentCard: card, skills: { refund: { sideEffect: 'none' } } }),
        problem({ name: 'billing', agentCard: card, timeoutMs: 0 }),
        problem({ name: 'billing', agentCard: card, trusted: 'yes' }),
        problem({ name: 'billing', agentCard: card, deduplicatesMessageIds: 1 }),
      ]),
    ).toMatchInlineSnapshot(`
      [
        "FILE: agent 1: "name" must be 1-24 letters, digits, _ or -, starting with a letter (it prefixes the tool names), got "1x"",
        "FILE: agent "billing": "agentCard" must be the http(s) URL of its Agent Card",
        "FILE: agent "billing": "bearer" names environment variable MISSING, which is not set",
        "FILE: agent "billing": unknown setting "tools"",
        "FILE: agent "billing": "skills.refund.sideEffect" must be one of read, reversible, irreversible",
        "FILE: agent "billing": "timeoutMs" must be a whole number from 1",
        "FILE: agent "billing": "trusted" must be true or false",
        "FILE: agent "billing": "deduplicatesMessageIds" must be true or false",
      ]
    `);
    const twice = configFile([
      { name: 'billing', command: 'x' },
      { name: 'billing', agentCard: card },
    ]);
    await expect(readA2aConfig({ file: twice })).rejects.toThrow('agent "billing": the name is listed twice');
  });

  it('names an agent whose card cannot be read, one line, and mounts the others', async () => {
    const registry = new ToolRegistry();
    const mounts = await mountA2aAgents({
      agents: [
        { name: 'gone', agentCard: 'http://127.0.0.1:1/.well-known/agent-card.json' },
        { name: 'billing', agentCard: `${remote.url}/.well-known/agent-card.json`, bearer: testTokens.alice },
      ],
      registry,
    });
    expect(mounts.failures.map((failure) => failure.agent)).toEqual(['gone']);
    expect(mounts.failures[0]?.message).toMatch(
      /^A2A agent "gone": its Agent Card at http:\/\/127\.0\.0\.1:1\/\S+ could not be used \(/,
    );
    expect(registry.names).toContain('billing_query_order');
  });
});
