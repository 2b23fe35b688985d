import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultChatTransport, type UIMessage } from 'ai6';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../../../store/postgres/test-support/postgres-cluster.js';
import { namedSessionId } from '../../named-session.js';
import { startPostgresTestNode } from '../../test-support/postgres-test-node.js';
import { testTokens } from '../../test-support/test-server.js';
import { chunksOf, messageOf } from './test-support/read-ui-message.js';

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('useChat against two nodes on PostgreSQL', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startNode(schema: string, dataDir: string) {
    const running = await startPostgresTestNode({ connectionString: cluster.connectionString, schema, dataDir });
    cleanups.push(() => running.close());
    return running;
  }

  const transport = (url: string, token: string) =>
    new DefaultChatTransport<UIMessage>({ api: `${url}/v1/chat`, headers: { authorization: `Bearer ${token}` } });

  it('streams a refund asked on one node, waiting for and approved by an approver on the other', async () => {
    const schema = cluster.freshSchema();
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-pg-chat-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const a = await startNode(schema, dataDir);
    const b = await startNode(schema, dataDir);

    const customer = transport(a.url, testTokens.alice)
      .sendMessages({
        chatId: 'pg-chat',
        messages: [
          { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'My teapot arrived cracked, I want a refund.' }] },
        ],
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      })
      .then(chunksOf);

    // The approver opens the customer's chat by its session id (GET /v1/approvals names it).
    const chatSession = namedSessionId('chat', { tenantId: 'shop', userId: 'C1001', roles: [] }, 'pg-chat');
    let waiting: UIMessage | undefined;
    for (let tries = 0; tries < 100 && waiting?.metadata === undefined; tries += 1) {
      const replay = await transport(b.url, testTokens.staff).reconnectToStream({ chatId: chatSession });
      if (replay === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      waiting = await messageOf(await chunksOf(replay));
    }
    if (waiting === undefined) throw new Error('the approver never saw the run');
    expect(waiting.metadata).toMatchObject({ stopReason: 'awaiting_approval' });
    const refund = waiting.parts.find((part) => part.type === 'tool-apply_refund') as
      | (UIMessage['parts'][number] & { approval: { id: string }; toolCallId: string })
      | undefined;
    if (refund === undefined) throw new Error('no refund part');
    expect(refund).toMatchObject({ state: 'approval-requested' });

    const approved: UIMessage = {
      ...waiting,
      parts: waiting.parts.map((part) =>
        part === refund
          ? ({
              ...refund,
              state: 'approval-responded',
              approval: { id: refund.approval.id, approved: true },
            } as UIMessage['parts'][number])
          : part,
      ),
    };
    const inbox = await fetch(`${b.url}/v1/approvals`, { headers: { authorization: `Bearer ${testTokens.staff}` } });
    expect(await inbox.json()).toMatchObject({
      approvals: [{ approvalId: refund.approval.id, sessionId: chatSession, tool: 'apply_refund' }],
    });
    const continuation = await transport(b.url, testTokens.staff).sendMessages({
      chatId: chatSession,
      messages: [approved],
      trigger: 'submit-message',
      messageId: approved.id,
      abortSignal: undefined,
    });
    const answered = await messageOf(await chunksOf(continuation), approved);
    expect(answered.metadata).toMatchObject({ stopReason: 'completed' });
    expect(answered.parts.find((part) => part.type === 'tool-apply_refund')).toMatchObject({
      state: 'output-available',
    });

    const onA = await messageOf(await customer);
    expect(onA.metadata).toMatchObject({ stopReason: 'completed' });
    const text = (message: UIMessage) =>
      message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(text(onA)).toBe(text(answered));
    expect(text(onA)).toMatch(/refund/);
  });
});
