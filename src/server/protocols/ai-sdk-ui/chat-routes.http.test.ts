import { DefaultChatTransport, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai6';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../models/scripted-model.js';
import { SqliteAuditLog } from '../../../store/sqlite/sqlite-audit-log.js';
import { namedSessionId } from '../../named-session.js';
import {
  dualRoleAuth,
  dualRoleTokens,
  startTestServer,
  type TestServer,
  testTokens,
} from '../../test-support/test-server.js';
import { withStreamingDelay } from '../../with-streaming-delay.js';
import { threadSessionId } from '../ag-ui/thread-session.js';
import { chunksOf, messageOf } from './test-support/read-ui-message.js';
import { uiChatScript } from './test-support/ui-chat-script.js';

/** Beside the test principals: C1001 of the shop (alice's identity) holding the approver role too. */
const tokens = dualRoleTokens;
const auth = dualRoleAuth;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function serve(delay: { firstTokenMs: number; deltaMs: number } | false = false): Promise<TestServer> {
  server = await startTestServer({
    auth,
    model: () => {
      const model = new ScriptedModel({ script: uiChatScript });
      return delay === false ? model : withStreamingDelay(model, delay);
    },
  });
  return server;
}

/** The AI SDK's own transport, as `useChat` builds it, speaking for `token`. */
function transport(running: TestServer, token: string): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport({ api: `${running.url}/v1/chat`, headers: { authorization: `Bearer ${token}` } });
}

function userMessage(text: string): UIMessage {
  return { id: `user-${Math.random().toString(36).slice(2)}`, role: 'user', parts: [{ type: 'text', text }] };
}

async function ask(running: TestServer, token: string, chatId: string, text: string): Promise<UIMessageChunk[]> {
  const stream = await transport(running, token).sendMessages({
    chatId,
    messages: [userMessage(text)],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  return chunksOf(stream);
}

const textOf = (message: UIMessage) =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
const toolParts = (message: UIMessage) =>
  message.parts.flatMap((part) =>
    part.type.startsWith('tool-') ? [part as Extract<UIMessage['parts'][number], { toolCallId: string }>] : [],
  );

/** A POST whose answer is read as it comes (a stream), not as JSON. */
function postRaw(running: TestServer, token: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The session id of alice's chat `chatId`: what `/v1/sessions/:id`, the audit and approvers know it by. */
const aliceChat = (chatId: string) => namedSessionId('chat', { tenantId: 'shop', userId: 'C1001', roles: [] }, chatId);

async function waitForStatus(running: TestServer, chatId: string, status: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const { body } = await running.request(`/v1/sessions/${aliceChat(chatId)}`, { token: testTokens.alice });
    if (body.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`chat ${chatId} never reached ${status}`);
}

describe('POST /v1/chat with the AI SDK transport and stream reader', () => {
  it('answers a question with steps, a tool part, progress and the stop reason in the finish metadata', async () => {
    const running = await serve();
    const chunks = await ask(running, testTokens.alice, 'chat-question', 'Where is my order SO20260901?');

    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'tool-input-start',
      'tool-input-available',
      'data-progress',
      'data-progress',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      ...chunks.filter((chunk) => chunk.type === 'text-delta').map(() => 'text-delta'),
      'text-end',
      'finish-step',
      'finish',
    ]);
    const message = await messageOf(chunks);
    expect(message.metadata).toMatchObject({ stopReason: 'completed', steps: 2 });
    expect(textOf(message)).toMatch(/^Your order SO20260901 is shipped\. It is on its way/);
    const [call] = toolParts(message);
    expect(call).toMatchObject({
      type: 'tool-query_order',
      state: 'output-available',
      input: { order_id: 'SO20260901' },
      output: expect.objectContaining({ order_id: 'SO20260901', status: 'shipped' }),
    });
    expect(message.parts.find((part) => part.type === 'data-progress')).toMatchObject({
      data: { tool: 'query_order', status: 'done', text: 'Looking up your order…' },
    });
    // The assistant message the browser built says what the session stored.
    const stored = await running.request(`/v1/sessions/${aliceChat('chat-question')}`, { token: testTokens.alice });
    const messages = stored.body.messages as { role: string; content: string }[];
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: textOf(message) });
    expect((await running.request('/v1/chat/chat-question/stream', { token: testTokens.alice })).status).toBe(204);
  });

  it('sends the protocol header and chunks the package schema accepts, ending with [DONE]', async () => {
    const running = await serve();
    const response = await fetch(`${running.url}/v1/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testTokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'chat-raw', message: userMessage('Where is my order?') }),
    });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = (await response.text())
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => block.slice('data: '.length));
    expect(data.at(-1)).toBe('[DONE]');
    const schema = uiMessageChunkSchema();
    for (const chunk of data.slice(0, -1)) {
      const result = await schema.validate?.(JSON.parse(chunk));
      expect(result, chunk).toMatchObject({ success: true });
    }
  });

  it("shows a rejected call as a tool error with arbiter's message, then the corrected call", async () => {
    const running = await serve();
    const chunks = await ask(running, testTokens.alice, 'chat-correct', 'Where is order 12345? It says SO20260901.');
    const message = await messageOf(chunks);
    const calls = toolParts(message);
    expect(calls.map((call) => [call.type, call.state])).toEqual([
      ['tool-query_order', 'output-error'],
      ['tool-query_order', 'output-available'],
    ]);
    expect(calls[0]).toMatchObject({ input: { order_id: 12345 } });
    expect(calls[1]).toMatchObject({ input: { order_id: 'SO20260901' } });
    const rejected = calls[0] as { errorText: string };
    expect(rejected.errorText).toContain('order_id');
    expect(rejected.errorText).toMatchInlineSnapshot(`
      "The call to query_order was not run: 1 problem with its arguments. Fix it and call query_order again.
      - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order number, "SO" + 8 digits, e.g. SO20260901). Valid example: "SO20260901". You sent the number 12345."
    `);
    expect(textOf(message)).toBe('Found it: order SO20260901 is shipped.');
  });
});

type ToolPart = ReturnType<typeof toolParts>[number];

/** `message` with the approval of `part` answered, as `addToolApprovalResponse` writes it. */
function answer(message: UIMessage, part: ToolPart, approved: boolean, toolCallId = part.toolCallId): UIMessage {
  const approval = (part as { approval: { id: string } }).approval;
  return {
    ...message,
    parts: message.parts.map((each) =>
      each === part
        ? ({
            ...part,
            toolCallId,
            state: 'approval-responded',
            approval: { id: approval.id, approved },
          } as UIMessage['parts'][number])
        : each,
    ),
  };
}

function send(running: TestServer, token: string, chatId: string, message: UIMessage) {
  return transport(running, token).sendMessages({
    chatId,
    messages: [message],
    trigger: 'submit-message',
    messageId: message.id,
    abortSignal: undefined,
  });
}

describe('approvals through the chat endpoint', () => {
  it('asks an approver with tool-approval-request, tells the customer with a data part, and his answer resumes the run', async () => {
    const running = await serve();
    const customer = ask(running, tokens.alice, 'chat-refund', 'My teapot arrived cracked, I want a refund.');
    await waitForStatus(running, 'chat-refund', 'awaiting_approval');

    // The approver's inbox names the chat's session; another tenant's approver sees nothing, a customer is refused.
    expect((await running.request('/v1/approvals', { token: tokens.staff })).body).toMatchObject({
      approvals: [{ sessionId: aliceChat('chat-refund'), tool: 'apply_refund', rule: expect.any(String) }],
    });
    expect((await running.request('/v1/approvals', { token: tokens.mallory })).body).toEqual({ approvals: [] });
    expect((await running.request('/v1/approvals', { token: tokens.alice })).status).toBe(403);
    const replay = await transport(running, tokens.staff).reconnectToStream({ chatId: aliceChat('chat-refund') });
    if (replay === null) throw new Error('no active stream for the approver');
    const waiting = await messageOf(await chunksOf(replay));
    expect(waiting.metadata).toMatchObject({ stopReason: 'awaiting_approval' });
    const refund = toolParts(waiting).find((part) => part.type === 'tool-apply_refund');
    if (refund === undefined) throw new Error('no refund part');
    expect(refund).toMatchObject({
      state: 'approval-requested',
      input: { order_id: 'SO20260902', amount_cents: 20000, reason_category: 'damaged' },
      approval: { id: expect.any(String) },
    });

    // The customer may not decide his own refund; neither may his own identity holding the approver role.
    await expect(send(running, tokens.alice, 'chat-refund', answer(waiting, refund, true))).rejects.toThrow(
      /"code":"forbidden"/,
    );
    await expect(send(running, tokens.dual, 'chat-refund', answer(waiting, refund, true))).rejects.toThrow(
      /"code":"self_approval"/,
    );
    const audit = new SqliteAuditLog({ database: running.server.store.database }).listAudit({
      sessionId: aliceChat('chat-refund'),
    });
    expect(audit.filter((row) => row.rule === 'four_eyes')).toEqual([
      expect.objectContaining({ decision: 'denied', approver: 'C1001', outcome: 'self_approval_refused' }),
    ]);
    // Another tenant's approver sees the chat neither by its name nor by its session id; an answer bound to
    // another call is not this approval.
    for (const chatId of ['chat-refund', aliceChat('chat-refund')]) {
      await expect(send(running, tokens.mallory, chatId, answer(waiting, refund, true))).rejects.toThrow(
        /"code":"not_found"/,
      );
    }
    await expect(
      send(
        running,
        tokens.staff,
        aliceChat('chat-refund'),
        answer(waiting, refund, true, toolParts(waiting)[0]?.toolCallId),
      ),
    ).rejects.toThrow(/"code":"not_found"/);

    const approved = answer(waiting, refund, true);
    const continuation = await messageOf(
      await chunksOf(await send(running, tokens.staff, aliceChat('chat-refund'), approved)),
      approved,
    );
    expect(toolParts(continuation).find((part) => part.type === 'tool-apply_refund')).toMatchObject({
      state: 'output-available',
      approval: { approved: true },
      output: expect.objectContaining({ order_id: 'SO20260902', status: expect.any(String) }),
    });
    expect(continuation.metadata).toMatchObject({ stopReason: 'completed' });
    expect(textOf(continuation)).toMatch(/^Done: your refund R\S+ of 200\.00 yuan for order SO20260902/);

    // The customer's stream stayed open through the wait and ends with the same answer, without the approval request.
    const customerChunks = await customer;
    expect(customerChunks.some((chunk) => chunk.type === 'tool-approval-request')).toBe(false);
    const answered = await messageOf(customerChunks);
    expect(answered.id).toBe(continuation.id);
    expect(textOf(answered)).toBe(textOf(continuation));
    expect(answered.parts.filter((part) => part.type === 'data-approval')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ tool: 'apply_refund', status: 'approved' }) }),
    ]);
    expect(toolParts(answered).find((part) => part.type === 'tool-apply_refund')).toMatchObject({
      state: 'output-available',
    });
    // Sending the decided answer again decides nothing.
    await expect(send(running, tokens.staff, aliceChat('chat-refund'), answer(waiting, refund, true))).rejects.toThrow(
      /"code":"already_decided"/,
    );
  });

  it('shows a rejected refund as a denied tool call to both', async () => {
    const running = await serve();
    const customer = ask(running, tokens.alice, 'chat-reject', 'My teapot arrived cracked, I want a refund.');
    await waitForStatus(running, 'chat-reject', 'awaiting_approval');
    const replay = await transport(running, tokens.staff).reconnectToStream({ chatId: aliceChat('chat-reject') });
    if (replay === null) throw new Error('no active stream for the approver');
    const waiting = await messageOf(await chunksOf(replay));
    const refund = toolParts(waiting).find((part) => part.type === 'tool-apply_refund');
    if (refund === undefined) throw new Error('no refund part');
    // An answer posted to another chat of the tenant is not that chat's approval: 404, and nothing is decided.
    await ask(running, tokens.alice, 'chat-elsewhere', 'Where is my order SO20260901?');
    await expect(
      send(running, tokens.staff, aliceChat('chat-elsewhere'), answer(waiting, refund, true)),
    ).rejects.toThrow(/"code":"not_found"/);
    const pending = await running.request(`/v1/sessions/${aliceChat('chat-reject')}`, { token: tokens.staff });
    expect(pending.body.pendingApprovals).toHaveLength(1);
    const rejected = answer(waiting, refund, false);
    const continuation = await messageOf(
      await chunksOf(await send(running, tokens.staff, aliceChat('chat-reject'), rejected)),
      rejected,
    );
    expect(toolParts(continuation).find((part) => part.type === 'tool-apply_refund')).toMatchObject({
      state: 'output-denied',
    });
    const answered = await messageOf(await customer);
    expect(toolParts(answered).find((part) => part.type === 'tool-apply_refund')).toMatchObject({
      state: 'output-denied',
    });
    expect(answered.parts.find((part) => part.type === 'data-approval')).toMatchObject({
      data: { status: 'rejected' },
    });
  });
});

describe('GET /v1/chat/:id/stream (the transport reconnect)', () => {
  it('replays the active run from the event log after a reload: the same message, every chunk once', async () => {
    const running = await serve({ firstTokenMs: 100, deltaMs: 25 });
    const controller = new AbortController();
    const first = await transport(running, tokens.alice).sendMessages({
      chatId: 'chat-reload',
      messages: [userMessage('Where is my order SO20260901?')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: controller.signal,
    });
    const reader = first.getReader();
    const seen: UIMessageChunk[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      seen.push(read.value);
      if (seen.filter((chunk) => chunk.type === 'text-delta').length === 2) break;
    }
    controller.abort();
    await reader.cancel().catch(() => {});

    const resumed = await transport(running, tokens.alice).reconnectToStream({ chatId: 'chat-reload' });
    if (resumed === null) throw new Error('no active stream after the reload');
    const chunks = await chunksOf(resumed);
    // What the first connection got is exactly the start of the replay: nothing missing, nothing twice.
    expect(chunks.slice(0, seen.length)).toEqual(seen);
    const message = await messageOf(chunks);
    expect(message.id).toBe((seen[0] as { messageId: string }).messageId);
    expect(message.metadata).toMatchObject({ stopReason: 'completed' });
    const stored = await running.request(`/v1/sessions/${aliceChat('chat-reload')}`, { token: tokens.alice });
    const messages = stored.body.messages as { role: string; content: string }[];
    expect(textOf(message)).toBe(messages.at(-1)?.content);
    expect(toolParts(message)).toHaveLength(1);
    expect((await running.request('/v1/chat/chat-reload/stream', { token: tokens.alice })).status).toBe(204);
  });

  it('follows a run to its end when the reconnect comes after the run ended and before its last events are written', async () => {
    const running = await serve();
    // The moment of the race: the run's status says it ended (written when its run:end is published) while its
    // last events wait for the log's next write; the reconnect is served in-process before that write.
    let reconnected: Promise<ReadableStream<UIMessageChunk> | null> | undefined;
    let loggedEnd = true;
    const { runs, manager } = running.server;
    const setStatus = runs.setStatus.bind(runs);
    runs.setStatus = (runId, status, failure) => {
      setStatus(runId, status, failure);
      if (status !== 'completed' || reconnected !== undefined) return;
      loggedEnd = manager.replay(runId, 0).some((event) => event.type === 'run:end');
      queueMicrotask(() => {
        reconnected = new DefaultChatTransport<UIMessage>({
          api: `${running.url}/v1/chat`,
          headers: { authorization: `Bearer ${tokens.alice}` },
          fetch: async (input, init) => running.server.app.request(String(input), init),
        }).reconnectToStream({ chatId: 'chat-race' });
      });
    };
    const asked = await ask(running, tokens.alice, 'chat-race', 'Where is my order SO20260901?');
    expect(loggedEnd).toBe(false);
    const resumed = await reconnected;
    if (resumed === null || resumed === undefined) throw new Error('no stream to reconnect to');
    const chunks = await chunksOf(resumed);
    expect(chunks).toEqual(asked);
    const message = await messageOf(chunks);
    expect(message.metadata).toMatchObject({ stopReason: 'completed' });
    const stored = await running.request(`/v1/sessions/${aliceChat('chat-race')}`, { token: tokens.alice });
    expect(textOf(message)).toBe((stored.body.messages as { content: string }[]).at(-1)?.content);
  });

  it("keeps chat ids in their principal's namespace: another's chat is never reached, read or blocked", async () => {
    const running = await serve({ firstTokenMs: 2000, deltaMs: 0 });
    const answering = ask(running, tokens.alice, 'chat-private', 'Where is my order SO20260901?');
    await waitForStatus(running, 'chat-private', 'running');
    const session = aliceChat('chat-private');
    for (const token of [tokens.mallory, tokens.bob]) {
      for (const chatId of ['chat-private', session]) {
        // While the run is active, too: the reconnect answers as for a chat with nothing running.
        expect((await running.request(`/v1/chat/${chatId}/stream`, { token })).status).toBe(204);
        expect((await running.request(`/v1/sessions/${session}`, { token })).status).toBe(404);
      }
      // The same chat id is a chat of their own: it answers them, and alice's session gets no run of theirs.
      const posted = await postRaw(running, token, '/v1/chat', {
        id: 'chat-private',
        messages: [userMessage('Hello')],
      });
      expect(posted.status).toBe(200);
      expect(posted.headers.get('x-arbiter-session')).not.toBe(session);
      await posted.text();
    }
    // The approver may watch the chat (by its session id) but not speak in it.
    const staff = await running.request('/v1/chat', {
      token: tokens.staff,
      method: 'POST',
      body: { id: session, messages: [userMessage('Refund everything, I want a refund.')] },
    });
    expect(staff).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    await answering;
    const stored = await running.request(`/v1/sessions/${session}`, { token: tokens.alice });
    expect(stored.body.runs).toHaveLength(1);
    expect((await running.request('/v1/chat/chat-never-begun/stream', { token: tokens.alice })).status).toBe(204);
  });

  it("cannot be used to occupy another tenant's AG-UI thread or chat before its owner starts it", async () => {
    const running = await serve();
    // A customer of another tenant creates chats under every id he can compute for the shop's guessable names.
    const shopCustomer = { tenantId: 'shop', userId: 'C1001', roles: [] };
    for (const id of [
      threadSessionId(shopCustomer, 'support-thread-main'),
      aliceChat('support-chat'),
      'support-chat',
    ]) {
      const posted = await postRaw(running, tokens.mallory, '/v1/chat', { id, messages: [userMessage('Hello')] });
      expect(posted.status).toBe(200);
      await posted.text();
    }
    // The owner's chat and thread of those names start normally, as hers.
    const chunks = await ask(running, tokens.alice, 'support-chat', 'Where is my order SO20260901?');
    expect(chunks.some((chunk) => chunk.type === 'tool-output-available')).toBe(true);
    const chat = await running.request(`/v1/sessions/${aliceChat('support-chat')}`, { token: tokens.alice });
    expect(chat.body.runs).toHaveLength(1);
    const thread = await postRaw(running, tokens.alice, '/v1/ag-ui', {
      threadId: 'support-thread-main',
      runId: 'run-1',
      messages: [{ id: 'm1', role: 'user', content: 'Where is my order SO20260901?' }],
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
    });
    expect(thread.status).toBe(200);
    expect(await thread.text()).toContain('RUN_FINISHED');
    const threadSession = await running.server.sessions.load(threadSessionId(shopCustomer, 'support-thread-main'));
    expect(threadSession).toMatchObject({ tenantId: 'shop', userId: 'C1001' });
  });

  it('refuses malformed requests with a clear 400', async () => {
    const running = await serve();
    const cases: [unknown, RegExp][] = [
      [{ id: '../etc', messages: [userMessage('hi')] }, /chat id/],
      [{ id: 'chat-x', messages: [] }, /must end with a UI message/],
      [{ id: 'chat-x', messages: [{ id: 'm', role: 'user', parts: [] }] }, /no text part/],
      [{ id: 'chat-x', messages: [userMessage('hi')], trigger: 'regenerate-message' }, /does not regenerate/],
      [
        { id: 'chat-x', messages: [{ id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'x' }] }] },
        /no approval response/,
      ],
    ];
    for (const [body, message] of cases) {
      const response = await running.request('/v1/chat', { token: tokens.alice, method: 'POST', body });
      expect(response.status).toBe(400);
      expect((response.body.error as { message: string }).message).toMatch(message);
    }
    expect((await running.request('/v1/sessions/chat-x', { token: tokens.alice })).status).toBe(404);
  });
});
