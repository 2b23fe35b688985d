import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Message, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readmeSnippets } from '../../../../test/package/readme-snippets.js';
import { startTestServer, type TestServer, testTokens } from '../../test-support/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The official SDK client, from the server's Agent Card, sending `token` as its bearer. */
async function clientFor(token: string, url = (server as TestServer).url): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(url);
}

function userMessage(text: string, fields: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...fields,
  };
}

const send = (client: Client, text: string) =>
  client.sendMessage({ tenant: '', message: userMessage(text), configuration: undefined, metadata: undefined });

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

const partText = (task: Task | undefined) => JSON.stringify([task?.artifacts, task?.status?.message?.parts]);

/** The approvals an input-required task names in its status message's metadata. */
function approvalsOf(task: Task): { approvalId: string; tool: string; reason: string }[] {
  return (task.status?.message?.metadata?.approvals ?? []) as { approvalId: string; tool: string; reason: string }[];
}

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

async function waitForState(client: Client, id: string, state: TaskState): Promise<Task> {
  for (let tries = 0; tries < 200; tries += 1) {
    const task = await client.getTask({ tenant: '', id });
    if (task.status?.state === state) return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${id} never reached ${state}`);
}

describe('A2A: arbiter serve as an A2A agent, with the official @a2a-js/sdk client', () => {
  it('publishes an Agent Card with the tools as skills and the bearer scheme; the JSON-RPC endpoint wants a token', async () => {
    server = await startTestServer();
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(card.skills)).toContain('apply_refund');
    expect(JSON.stringify(card.securitySchemes)).toContain('Bearer');
    const anonymous = await fetch(`${server.url}/v1/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('runs a full task: message/send answers completed with the answer as an artifact; tasks/get reads it back', async () => {
    server = await startTestServer();
    const client = await clientFor(testTokens.alice);
    const task = asTask(await send(client, 'Where is my order SO20260901?'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partText(task)).toContain('SO20260901 is shipped');
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partText(again)).toContain('SO20260901 is shipped');
    expect(again.history.map((message) => message.role)).toContain(Role.ROLE_USER);
  });

  it('streams a task with message/stream: the task, then working statuses, the answer artifact, completed', async () => {
    server = await startTestServer();
    const client = await clientFor(testTokens.alice);
    const events = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage('Where is my order SO20260901?'),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const cases = events.map((event) => event.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases).toContain('artifactUpdate');
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('makes a refund over the limit input-required with the approval id and reason; an approver decides; the task completes', async () => {
    server = await startTestServer();
    const client = await clientFor(testTokens.alice);
    const task = asTask(await send(client, 'My teapot arrived cracked, I want a refund.'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const approvals = task.status?.message?.metadata?.approvals as {
      approvalId: string;
      tool: string;
      reason: string;
    }[];
    expect(approvals).toHaveLength(1);
    expect(approvals[0]?.tool).toBe('apply_refund');
    expect(approvals[0]?.reason).not.toBe('');
    expect(partText(task)).toContain(approvals[0]?.approvalId);
    // The rule's reason ends with its own full stop: the text has one, not two.
    expect(partText(task)).toContain('must approve it. The task continues once it is decided.');
    expect(partText(task)).not.toContain('..');
    // tasks/get says the same, from the records.
    const read = await client.getTask({ tenant: '', id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partText(read)).toContain('must approve it. The task continues once it is decided.');
    expect(read.status?.message?.metadata?.approvals).toEqual(approvals);

    // The requester cannot approve his own refund; the tenant's approver can, through the ordinary route.
    const own = await server.request(`/v1/approvals/${approvals[0]?.approvalId}`, {
      token: testTokens.alice,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(own.status).toBe(403);
    const decided = await server.request(`/v1/approvals/${approvals[0]?.approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    const done = await waitForState(client, task.id, TaskState.TASK_STATE_COMPLETED);
    expect(partText(done)).toContain('RF');
  });

  it('follows an input-required task to its end with tasks/resubscribe once a person decides', async () => {
    server = await startTestServer();
    const client = await clientFor(testTokens.alice);
    const task = asTask(await send(client, 'My teapot arrived cracked, I want a refund.'));
    const approvalId = approvalsOf(task)[0]?.approvalId;
    const stream = client.resubscribeTask({ tenant: '', id: task.id });
    // The first event (the task as it stands) says the subscription is live; then a person decides.
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    const following = collect(stream);
    await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    const events = await following;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('cancels a task waiting for approval: canceled, and a later approval does not run the refund', async () => {
    server = await startTestServer();
    const client = await clientFor(testTokens.alice);
    const task = asTask(await send(client, 'My teapot arrived cracked, I want a refund.'));
    const approvalId = approvalsOf(task)[0]?.approvalId;
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const late = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(late.status).toBe(409);
    await server.server.idle();
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('answers a message sent again with the same messageId with the same task and one run; another user gets his own', async () => {
    server = await startTestServer();
    const alice = await clientFor(testTokens.alice);
    const message = userMessage('Where is my order SO20260901?');
    const sendIt = (client: Client) =>
      client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
    const first = asTask(await sendIt(alice));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const again = asTask(await sendIt(alice));
    expect(again.id).toBe(first.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partText(again)).toContain('SO20260901 is shipped');
    const streamed = await collect(
      alice.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: undefined }),
    );
    expect(streamed.map((event) => (event.payload?.$case === 'task' ? event.payload.value.id : ''))).toEqual([
      first.id,
    ]);
    const sessionId = String(first.metadata?.sessionId);
    expect(await server.server.runs.listForSession(sessionId)).toHaveLength(1);
    // The same message id of another customer of the tenant is another task.
    const bob = asTask(await sendIt(await clientFor(testTokens.bob)));
    expect(bob.id).not.toBe(first.id);
  });

  it('answers a refund sent twice while it waits for a person with the one waiting task: one approval', async () => {
    server = await startTestServer();
    const client = await clientFor(testTokens.alice);
    const message = userMessage('My teapot arrived cracked, I want a refund.');
    const sendIt = () => client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
    const first = asTask(await sendIt());
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const again = asTask(await sendIt());
    expect(again.id).toBe(first.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(approvalsOf(again)).toEqual(approvalsOf(first));
    expect(await server.server.runs.listForSession(String(first.metadata?.sessionId))).toHaveLength(1);
  });

  it("does not find another tenant's task, nor another customer's; the tenant's approver sees it", async () => {
    server = await startTestServer();
    const alice = await clientFor(testTokens.alice);
    const task = asTask(await send(alice, 'Where is my order SO20260901?'));
    const mallory = await clientFor(testTokens.mallory);
    await expect(mallory.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
    await expect(mallory.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/not found/i);
    const bob = await clientFor(testTokens.bob);
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
    const staff = await clientFor(testTokens.staff);
    expect((await staff.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('keeps a task across a restart: a new server on the same data reads it, and an approval there completes it', async () => {
    const first = await startTestServer();
    const client = await clientFor(testTokens.alice, first.url);
    const task = asTask(await send(client, 'My teapot arrived cracked, I want a refund.'));
    const approvalId = approvalsOf(task)[0]?.approvalId;
    await first.close();
    server = await startTestServer({ dataDir: first.dataDir });
    const again = await clientFor(testTokens.alice);
    const read = await again.getTask({ tenant: '', id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(approvalsOf(read)[0]?.approvalId).toBe(approvalId);
    const decided = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    const done = await waitForState(again, task.id, TaskState.TASK_STATE_COMPLETED);
    expect(partText(done)).toContain('RF');
  });

  it('follows an input-required task with SubscribeToTask after a restart, where no execution follows it, to completed', async () => {
    const first = await startTestServer();
    const task = asTask(
      await send(await clientFor(testTokens.alice, first.url), 'My teapot arrived cracked, I want a refund.'),
    );
    const approvalId = approvalsOf(task)[0]?.approvalId;
    await first.close();
    server = await startTestServer({ dataDir: first.dataDir });
    // Another customer of the tenant, and a customer of another tenant, find no such task to follow.
    for (const token of [testTokens.bob, testTokens.mallory]) {
      await expect(collect((await clientFor(token)).resubscribeTask({ tenant: '', id: task.id }))).rejects.toThrow(
        /not found/i,
      );
    }
    const stream = (await clientFor(testTokens.alice)).resubscribeTask({ tenant: '', id: task.id });
    const opening = await stream.next();
    expect(opening.value?.payload?.$case).toBe('task');
    const snapshot = opening.value?.payload?.$case === 'task' ? opening.value.payload.value : undefined;
    expect(snapshot?.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const following = collect(stream);
    // The stream stays open while the task waits for a person (it used to close here, with no final state).
    const early = await Promise.race([
      following.then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 300, 'open')),
    ]);
    expect(early).toBe('open');
    const decided = await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    const events = await following;
    const states = events.map((event) =>
      event.payload?.$case === 'statusUpdate' ? event.payload.value.status?.state : undefined,
    );
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(states.filter((state) => state === TaskState.TASK_STATE_COMPLETED)).toHaveLength(1);
    // Nothing from before the snapshot is told again: no second input-required.
    expect(states).not.toContain(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(JSON.stringify(events)).toContain('RF');
  });

  it('ends a subscription that follows a waiting task from the records when the task is canceled', async () => {
    const first = await startTestServer();
    const task = asTask(
      await send(await clientFor(testTokens.alice, first.url), 'My teapot arrived cracked, I want a refund.'),
    );
    await first.close();
    server = await startTestServer({ dataDir: first.dataDir });
    const client = await clientFor(testTokens.alice);
    const stream = client.resubscribeTask({ tenant: '', id: task.id });
    expect((await stream.next()).value?.payload?.$case).toBe('task');
    const following = collect(stream);
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const events = await Promise.race([
      following,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the subscription never ended')), 5000)),
    ]);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("follows a customer's input-required task for the tenant's approver (no execution of his on this node), to completed", async () => {
    server = await startTestServer();
    const task = asTask(await send(await clientFor(testTokens.alice), 'My teapot arrived cracked, I want a refund.'));
    const approvalId = approvalsOf(task)[0]?.approvalId;
    const stream = (await clientFor(testTokens.staff)).resubscribeTask({ tenant: '', id: task.id });
    expect((await stream.next()).value?.payload?.$case).toBe('task');
    const following = collect(stream);
    await server.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    const last = (await following).at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  /** docs/a2a.md's client, as a reader runs it, asking `question`: what it printed. */
  async function runSnippet(question?: string): Promise<string[]> {
    const [snippet] = readmeSnippets({ file: 'docs/a2a.md' }).filter(
      (block) => block.section === 'A2A' && block.language === 'js',
    );
    expect(snippet).toBeDefined();
    const code = snippet?.code ?? '';
    const asked = question === undefined ? code : code.replace('Where is my order SO20260901?', question);
    expect(asked === code).toBe(question === undefined);
    const directory = join('node_modules', '.cache', 'arbiter-readme');
    mkdirSync(directory, { recursive: true });
    const file = join(directory, `a2a-snippet-${randomUUID()}.mjs`);
    writeFileSync(file, asked);
    vi.stubEnv('ARBITER_URL', server?.url ?? '');
    vi.stubEnv('ARBITER_TOKEN', testTokens.alice);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
      printed.push(values.map(String).join(' '));
    });
    try {
      await import(pathToFileURL(join(process.cwd(), file)).href);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
      rmSync(file, { force: true });
    }
    return printed;
  }

  it("runs docs/a2a.md's snippet against a server: the order's answer", async () => {
    server = await startTestServer();
    const printed = await runSnippet();
    expect(printed[0]).toBe('TASK_STATE_COMPLETED');
    expect(printed.at(-1)).toContain('SO20260901 is shipped');
  });

  it("runs docs/a2a.md's snippet on a refund that waits for a person: the approval, no undefined", async () => {
    server = await startTestServer();
    const printed = await runSnippet('My teapot arrived cracked, I want a refund.');
    expect(printed[0]).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(printed.at(-1)).toMatch(/^waiting for approval: \[\{"approvalId":"ap_[0-9a-f]+","tool":"apply_refund"/);
    expect(printed.join('\n')).not.toContain('undefined');
  });

  it('cancels a running task: the run is aborted and the task ends canceled', async () => {
    server = await startTestServer({ streamingDelay: { firstTokenMs: 5000 } });
    const client = await clientFor(testTokens.alice);
    const stream = client.sendMessageStream({
      tenant: '',
      message: userMessage('Where is my order SO20260901?'),
      configuration: undefined,
      metadata: undefined,
    });
    const first = await stream.next();
    const id = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : '';
    expect(id).not.toBe('');
    const canceled = await client.cancelTask({ tenant: '', id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest = await collect(stream);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined).toBe(TaskState.TASK_STATE_CANCELED);
    await server.server.idle();
    const read = await client.getTask({ tenant: '', id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(read.metadata?.runId).toBeDefined();
  });
});
