import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testTokens } from './test-support/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The shop's chat: a new session asks for the teapot refund, staff approve it, the run ends; its last answer. */
async function refundApproved(content: string, locale: 'en' | 'zh-CN'): Promise<string> {
  const running = server as TestServer;
  const token = testTokens.alice;
  const sessionId = (await running.request('/v1/sessions', { token, method: 'POST' })).body.id as string;
  const sent = await running.request(`/v1/sessions/${sessionId}/messages`, {
    token,
    method: 'POST',
    body: { content, locale },
  });
  const asked = await readSse({ url: `${running.url}/v1/runs/${sent.body.runId as string}/events`, token });
  const required = asked.events.find((event) => event.type === 'approval:required') as ExternalEvent & {
    approvalId: string;
  };
  const decided = await running.request(`/v1/approvals/${required.approvalId}`, {
    token: testTokens.staff,
    method: 'POST',
    body: { decision: 'approve' },
  });
  expect(decided.status).toBe(202);
  // The resumed run's events follow on the same stream, after the first end.
  const resumed = await readSse({
    url: `${running.url}/v1/runs/${sent.body.runId as string}/events`,
    token,
    lastEventId: asked.events.at(-1)?.seq ?? 0,
    timeoutMs: 60_000,
  });
  expect(resumed.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'completed' });
  const session = await running.request(`/v1/sessions/${sessionId}`, { token });
  const messages = session.body.messages as { role: string; content: string | null }[];
  return messages.findLast((message) => message.role === 'assistant')?.content ?? '';
}

describe('the same refund asked and approved again in the shop chat', () => {
  it('says it was already made earlier, not that it was approved and is processing now (en, zh-CN)', async () => {
    server = await startTestServer();
    const first = await refundApproved('My teapot arrived cracked, I want a refund.', 'en');
    expect(first).toMatch(/^Done: your refund RF\d+ of 200\.00 yuan .* was approved and is now processing\./);
    const again = await refundApproved('My teapot arrived cracked, I want a refund.', 'en');
    expect(again).toMatch(/^That refund was already made earlier, so nothing was refunded again: your refund RF\d+ /);
    expect(again).not.toContain('was approved and is now');
    const chinese = await refundApproved('茶壶碎了，请退款。', 'zh-CN');
    expect(chinese).toMatch(/^这笔退款之前已经办过，这次没有重复退款：/);
  });
});
