import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BaseEvent, EventType, HttpAgent, type Interrupt } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readmeSnippets } from '../../../../test/package/readme-snippets.js';
import type { Principal } from '../../../core/principal.js';
import type { Model } from '../../../models/model.js';
import { SqliteAuditLog } from '../../../store/sqlite/sqlite-audit-log.js';
import { dualRoleAuth, dualRoleTokens, startTestServer, type TestServer } from '../../test-support/test-server.js';
import { threadSessionId } from './thread-session.js';

/** Beside the test principals: C1001 of the shop (alice's identity) holding the approver role too. */
const tokens = dualRoleTokens;
const auth = dualRoleAuth;
const alicePrincipal: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const malloryPrincipal: Principal = { tenantId: 'other-shop', userId: 'C1001', roles: ['customer'] };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function agentFor(token: string, threadId: string = randomUUID()): HttpAgent {
  return new HttpAgent({
    url: `${(server as TestServer).url}/v1/ag-ui`,
    headers: { Authorization: `Bearer ${token}` },
    threadId,
  });
}

/** Runs the agent once; every event the client applied, each checked against @ag-ui/core's schema. */
async function run(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}) {
  const events: BaseEvent[] = [];
  let interrupts: Interrupt[] = [];
  const result = await agent.runAgent(parameters, {
    onEvent: ({ event }) => {
      EventSchemas.parse(event);
      events.push(event);
    },
    onRunFinishedEvent: (finished) => {
      if (finished.outcome === 'interrupt') interrupts = finished.interrupts;
    },
  });
  return { ...result, events, interrupts, types: events.map((event) => event.type) };
}

/**
 * A run the server refuses. HttpAgent reports the failure with `console.error` (message and stack) before
 * it rejects; here the refusal is the expected outcome, so the report is checked and kept off the output.
 */
async function expectRefused(attempt: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    await expect(attempt()).rejects.toThrow(pattern);
    expect(reported).toHaveBeenCalledWith(
      'Agent execution failed:',
      expect.objectContaining({ message: expect.stringMatching(pattern) }),
    );
  } finally {
    reported.mockRestore();
  }
}

function say(agent: HttpAgent, content: string): void {
  agent.addMessage({ id: randomUUID(), role: 'user', content });
}

/** The raw SSE body of one POST, each `data:` event parsed and checked against @ag-ui/core's schema. */
async function post(token: string, body: unknown): Promise<{ status: number; events: BaseEvent[]; text: string }> {
  const response = await fetch(`${(server as TestServer).url}/v1/ag-ui`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => EventSchemas.parse(JSON.parse(block.slice(6))) as BaseEvent);
  return { status: response.status, events, text };
}

const input = (fields: Record<string, unknown> = {}) => ({
  threadId: randomUUID(),
  runId: randomUUID(),
  messages: [{ id: 'm1', role: 'user', content: 'Where is my order SO20260901?' }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
  ...fields,
});

describe('AG-UI: POST /v1/ag-ui with the official HttpAgent', () => {
  it('answers a question with a tool call: steps per model call, tool call events, results, the text, RUN_FINISHED', async () => {
    server = await startTestServer({ auth });
    const agent = agentFor(tokens.alice);
    say(agent, 'Where is my order SO20260901?');
    const { events, types, newMessages } = await run(agent);

    expect(types.slice(0, 2)).toEqual([EventType.RUN_STARTED, EventType.STATE_SNAPSHOT]);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    expect(types.filter((type) => type === EventType.STEP_STARTED)).toHaveLength(3);
    expect(types.filter((type) => type === EventType.STEP_FINISHED)).toHaveLength(3);
    const started = events.filter((event) => event.type === EventType.TOOL_CALL_START);
    expect(started.map((event) => event.toolCallName)).toEqual(['query_order', 'track_shipment']);
    const args = events.filter((event) => event.type === EventType.TOOL_CALL_ARGS);
    expect(JSON.parse(String(args[0]?.delta))).toEqual({ order_id: 'SO20260901' });
    const results = events.filter((event) => event.type === EventType.TOOL_CALL_RESULT);
    expect(results.map((event) => event.toolCallId)).toEqual(started.map((event) => event.toolCallId));
    expect(String(results[0]?.content)).toContain('SO20260901');
    expect(types).toContain(EventType.TEXT_MESSAGE_CONTENT);
    const finished = events.at(-1) as BaseEvent & { outcome: unknown; result: { stopReason: string } };
    expect(finished.outcome).toEqual({ type: 'success' });
    expect(finished.result.stopReason).toBe('completed');
    const answer = newMessages.filter((message) => message.role === 'assistant' && message.content);
    expect(String(answer.at(-1)?.content)).toContain('SO20260901 is shipped');
    expect(agent.state).toEqual({});
  });

  it('continues the conversation on a second run of the same thread, and replays a run posted again with its runId', async () => {
    server = await startTestServer({ auth });
    const threadId = randomUUID();
    const agent = agentFor(tokens.alice, threadId);
    say(agent, 'Hello');
    const first = await run(agent, { runId: 'run-one' });
    // The session's confirmed slots are the thread's state, personal data redacted.
    await server.server.sessions.setSlots({
      sessionId: threadSessionId(alicePrincipal, threadId),
      slots: { order_id: 'SO20260901', contact_phone: '13800138000' },
    });
    say(agent, 'Where is my order SO20260901?');
    const second = await run(agent);
    expect(second.types).toContain(EventType.TOOL_CALL_START);
    expect(agent.state).toEqual({ order_id: 'SO20260901', contact_phone: '[redacted]' });
    expect(JSON.stringify(second.events)).not.toContain('13800138000');

    const session = await server.server.sessions.load(threadSessionId(alicePrincipal, threadId));
    const said = session?.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(said).toEqual(['Hello', 'Where is my order SO20260901?']);

    // A reload: a fresh client on the thread posts the first run's id again and gets the same run, no new one.
    const reloaded = agentFor(tokens.alice, threadId);
    say(reloaded, 'Hello');
    const replay = await run(reloaded, { runId: 'run-one' });
    // The same events with the same ids; the state snapshot is the thread's state now.
    const strip = (events: BaseEvent[]) =>
      events
        .filter((event) => event.type !== EventType.STATE_SNAPSHOT)
        .map(({ timestamp: _timestamp, ...event }) => event);
    expect(strip(replay.events)).toEqual(strip(first.events));
    expect(replay.events[1]).toMatchObject({ type: EventType.STATE_SNAPSHOT, snapshot: { order_id: 'SO20260901' } });
    const after = await server.server.sessions.load(threadSessionId(alicePrincipal, threadId));
    expect(after?.messages.filter((message) => message.role === 'user')).toHaveLength(2);
  });

  it('finishes a refund with the interrupt outcome; the requester cannot approve it; an approver resumes it; the requester picks up', async () => {
    server = await startTestServer({ auth });
    const threadId = randomUUID();
    const customer = agentFor(tokens.dual, threadId);
    say(customer, 'My teapot arrived cracked, I want a refund.');
    const asked = await run(customer);
    const finished = asked.events.at(-1) as BaseEvent & { outcome: { type: string } };
    expect(finished.outcome.type).toBe('interrupt');
    expect(asked.interrupts).toHaveLength(1);
    const [interrupt] = asked.interrupts as [Interrupt];
    expect(interrupt).toMatchObject({
      reason: 'tool_approval',
      metadata: { tool: 'apply_refund', arguments: { order_id: 'SO20260902', amount_cents: 20000 } },
    });
    expect(interrupt.metadata?.arguments).not.toHaveProperty('user_id');
    expect(customer.pendingInterrupts.map((pending) => pending.id)).toEqual([interrupt.id]);
    const approve = [{ interruptId: interrupt.id, status: 'resolved' as const, payload: { decision: 'approve' } }];

    // Four eyes: the customer (an approver too) may not approve his own refund; nothing is decided.
    await expectRefused(() => run(customer, { resume: approve }), /HTTP 403.*self_approval/);
    const audit = new SqliteAuditLog({ database: server.server.store.database });
    expect(
      audit.listAudit({ sessionId: threadSessionId(alicePrincipal, threadId) }).map((row) => row.outcome),
    ).toContain('self_approval_refused');
    // The thread's session id, as the approvals list shows it: how an approver opens the customer's thread.
    const sessionId = threadSessionId(alicePrincipal, threadId);
    expect((await server.request('/v1/approvals', { token: tokens.staff })).body).toMatchObject({
      approvals: [expect.objectContaining({ approvalId: interrupt.id, sessionId })],
    });
    // Another tenant's approver sees neither the thread by its name nor by its session id.
    await expectRefused(() => run(agentFor(tokens.mallory, threadId), { resume: approve }), /HTTP 404/);
    await expectRefused(() => run(agentFor(tokens.mallory, sessionId), { resume: approve }), /HTTP 404/);
    // A customer of the tenant who is not an approver: the thread is not his, by either.
    await expectRefused(() => run(agentFor(tokens.bob, threadId), { resume: approve }), /HTTP 404/);
    await expectRefused(() => run(agentFor(tokens.bob, sessionId), { resume: approve }), /HTTP 404/);
    // The approver's own name for the thread is his own (empty) thread, not the customer's.
    await expectRefused(() => run(agentFor(tokens.staff, threadId), { resume: approve }), /HTTP 404/);

    const staff = agentFor(tokens.staff, sessionId);
    const decided = await run(staff, { resume: approve });
    expect(decided.types[0]).toBe(EventType.RUN_STARTED);
    const resolved = decided.events.find(
      (event) => event.type === EventType.CUSTOM && event.name === 'arbiter.approval_resolved',
    );
    expect(resolved?.value).toMatchObject({ approvalId: interrupt.id, status: 'approved' });
    const refund = decided.events.find(
      (event) => event.type === EventType.TOOL_CALL_RESULT && event.toolCallId === interrupt.toolCallId,
    );
    expect(String(refund?.content)).toContain('RF');
    expect(decided.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(
      audit
        .listAudit({ sessionId: threadSessionId(alicePrincipal, threadId) })
        .find((row) => row.tool === 'apply_refund' && row.outcome === 'ok'),
    ).toMatchObject({ decision: 'approved', approver: 'S9001' });

    // The customer answers the interrupt he holds: decided already, so it picks up the run where it stopped.
    const picked = await run(customer, { resume: approve });
    const strip = (events: BaseEvent[]) =>
      events
        .map(({ timestamp: _timestamp, ...event }) => event)
        .filter((event) => event.type !== EventType.RUN_STARTED && event.type !== EventType.RUN_FINISHED);
    expect(strip(picked.events)).toEqual(strip(decided.events));
    expect(customer.pendingInterrupts).toEqual([]);
    const text = picked.newMessages.filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(text.join(' ')).toContain('was approved');
  });

  it('rejects the call when an approver answers the interrupt cancelled: nothing is refunded', async () => {
    server = await startTestServer({ auth });
    const threadId = randomUUID();
    const customer = agentFor(tokens.alice, threadId);
    say(customer, 'My teapot arrived cracked, I want a refund.');
    const [interrupt] = (await run(customer)).interrupts as [Interrupt];
    expect(interrupt).toBeDefined();
    const staff = agentFor(tokens.staff, threadSessionId(alicePrincipal, threadId));
    const decided = await run(staff, { resume: [{ interruptId: interrupt.id, status: 'cancelled' }] });
    const resolved = decided.events.find(
      (event) => event.type === EventType.CUSTOM && event.name === 'arbiter.approval_resolved',
    );
    expect(resolved?.value).toMatchObject({ approvalId: interrupt.id, status: 'rejected' });
    expect(decided.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    const audit = new SqliteAuditLog({ database: server.server.store.database });
    const refunds = audit
      .listAudit({ sessionId: threadSessionId(alicePrincipal, threadId) })
      .filter((row) => row.tool === 'apply_refund');
    expect(refunds.some((row) => row.outcome === 'ok')).toBe(false);
    // Answering it again decides nothing twice: the approval stays rejected.
    const again = await post(tokens.staff, {
      ...input({ threadId: threadSessionId(alicePrincipal, threadId) }),
      messages: [],
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'approve' } }],
    });
    expect(again.status).toBe(200);
    expect(await server.server.approvals.getApproval(interrupt.id)).toMatchObject({ status: 'rejected' });
  });

  it('ends a run whose model fails with RUN_ERROR, naming the code and no internals', async () => {
    const broken: Model = {
      name: 'broken',
      generate: async () => {
        throw new Error('upstream exploded at /srv/secret/path');
      },
    };
    // The server's log line for the failed call, kept here instead of on stderr.
    const logged: { event?: unknown }[] = [];
    server = await startTestServer({ auth, model: broken, logger: (line) => logged.push(line) });
    const agent = agentFor(tokens.alice);
    say(agent, 'Hello');
    const seen: BaseEvent[] = [];
    let failed: unknown;
    await agent
      .runAgent(
        {},
        {
          onRunErrorEvent: ({ event }) => {
            EventSchemas.parse(event);
            seen.push(event);
          },
        },
      )
      .catch((error: unknown) => {
        failed = error;
      });
    expect(seen).toEqual([expect.objectContaining({ type: EventType.RUN_ERROR, code: 'internal_error' })]);
    expect(String((seen[0] as { message?: string }).message)).not.toContain('/srv/secret');
    // The client reports the RUN_ERROR to its subscribers; runAgent itself settles normally.
    expect(failed).toBeUndefined();
    expect(logged.map((line) => line.event)).toContain('model_call_failed');

    // On the wire: RUN_STARTED, the state, then RUN_ERROR, each valid, with no internals anywhere.
    const raw = await post(tokens.alice, input());
    expect(raw.status).toBe(200);
    expect(raw.events.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.RUN_ERROR,
    ]);
    expect(raw.text).not.toContain('/srv/secret');
    expect(raw.text).not.toContain('exploded');
  });

  it('refuses what it cannot run with a 400 that names the problem', async () => {
    server = await startTestServer({ auth });
    const cases: [unknown, RegExp][] = [
      [{ runId: 'r', messages: [] }, /threadId/],
      [input({ threadId: 'x'.repeat(201) }), /threadId/],
      [
        input({
          messages: [
            { id: 'm', role: 'user', content: [{ type: 'image', source: { type: 'url', value: 'http://x/y.png' } }] },
          ],
        }),
        /text only|messages/,
      ],
      [input({ messages: [{ id: 'm', role: 'wizard', content: 'x' }] }), /messages\.0/],
      [input({ tools: [{ name: 'delete_everything', description: 'x', parameters: {} }] }), /own tools/],
      [input({ context: [{ description: 'd', value: 'v' }] }), /context/],
      [input({ messages: [{ id: 'm', role: 'assistant', content: 'hi' }] }), /last of "messages"/],
      [input({ forwardedProps: { locale: 'fr' } }), /forwardedProps\.locale/],
      [input({ resume: [{ interruptId: 'x', status: 'resolved', payload: { decision: 'maybe' } }] }), /decision/],
    ];
    for (const [body, message] of cases) {
      const response = await server.request('/v1/ag-ui', { token: tokens.alice, method: 'POST', body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((response.body.error as { message: string }).message).toMatch(message);
    }
    const unknown = await server.request('/v1/ag-ui', {
      token: tokens.alice,
      method: 'POST',
      body: input({ resume: [{ interruptId: 'no-such-approval', status: 'cancelled' }] }),
    });
    expect(unknown.status).toBe(404);
    const anonymous = await server.request('/v1/ag-ui', { method: 'POST', body: input() });
    expect(anonymous.status).toBe(401);
  });

  it('keeps threads apart across tenants: the same threadId in another tenant is another session', async () => {
    server = await startTestServer({ auth });
    const threadId = randomUUID();
    const alice = agentFor(tokens.alice, threadId);
    say(alice, 'Where is my order SO20260901?');
    await run(alice);
    const mallory = agentFor(tokens.mallory, threadId);
    say(mallory, 'Hello');
    const theirs = await run(mallory);
    expect(theirs.types).not.toContain(EventType.TOOL_CALL_START);
    const mine = await server.server.sessions.load(threadSessionId(alicePrincipal, threadId));
    const hers = await server.server.sessions.load(threadSessionId(malloryPrincipal, threadId));
    expect(mine?.tenantId).toBe('shop');
    expect(hers?.tenantId).toBe('other-shop');
    expect(hers?.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'Hello',
    ]);
    expect(hers?.messages.some((message) => message.role === 'tool')).toBe(false);
    // Bob, of alice's tenant, neither reads nor writes her thread: the same thread id is his own thread.
    const bob = agentFor(tokens.bob, threadId);
    say(bob, 'Hello');
    expect((await run(bob)).types).not.toContain(EventType.TOOL_CALL_START);
    const bobs = await server.server.sessions.load(threadSessionId({ ...alicePrincipal, userId: 'C1002' }, threadId));
    expect(bobs?.userId).toBe('C1002');
    const still = await server.server.sessions.load(threadSessionId(alicePrincipal, threadId));
    expect(still?.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    // Nor by her thread's session id: that is just another name of his own.
    const byId = agentFor(tokens.bob, threadSessionId(alicePrincipal, threadId));
    say(byId, 'Hello again');
    await run(byId);
    const untouched = await server.server.sessions.load(threadSessionId(alicePrincipal, threadId));
    expect(untouched?.messages).toEqual(still?.messages);
  });

  it("runs docs/ag-ui.md's snippet against the server", async () => {
    server = await startTestServer({ auth });
    const [snippet] = readmeSnippets({ file: 'docs/ag-ui.md' }).filter(
      // JavaScript, as a front end would hold it (the README's TypeScript blocks import arbiter alone).
      (block) => block.section === 'AG-UI' && block.language === 'js',
    );
    expect(snippet).toBeDefined();
    const directory = join('node_modules', '.cache', 'arbiter-readme');
    mkdirSync(directory, { recursive: true });
    const file = join(directory, `ag-ui-snippet-${randomUUID()}.mjs`);
    writeFileSync(file, snippet?.code ?? '');
    vi.stubEnv('ARBITER_URL', server.url);
    vi.stubEnv('ARBITER_TOKEN', tokens.alice);
    const printed: unknown[][] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
      printed.push(values);
    });
    try {
      await import(pathToFileURL(join(process.cwd(), file)).href);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
      rmSync(file, { force: true });
    }
    const lines = printed.map((values) => values.map(String).join(' '));
    expect(lines.some((line) => line.includes('query_order'))).toBe(true);
    expect(lines.at(-1)).toContain('SO20260901 is shipped');
  });
});
