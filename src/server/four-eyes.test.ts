import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import type { AuthConfig } from './auth-config.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testAuth, testTokens } from './test-support/test-server.js';

/** Beside the test principals: shop customer C1001 (alice) holding the approver role too, and an approver of another tenant with the shop approver's user id. */
const tokens = {
  ...testTokens,
  dual: 'dual-role-token-0005-0123456789abcdef',
  otherStaff: 'other-staff-token-0006-0123456789abcdef',
} as const;

const auth: AuthConfig = {
  tokens: [
    ...testAuth.tokens,
    { token: tokens.dual, tenantId: 'shop', userId: 'C1001', roles: ['customer', 'approver'] },
    { token: tokens.otherStaff, tenantId: 'other-shop', userId: 'S9001', roles: ['approver'] },
  ],
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** `token`'s customer asks for the 200.00 yuan refund; resolves once the run waits for approval. */
async function requestRefund(token: string): Promise<{ sessionId: string; runId: string; approvalId: string }> {
  const running = server as TestServer;
  const session = await running.request('/v1/sessions', { token, method: 'POST' });
  const sessionId = session.body.id as string;
  const message = await running.request(`/v1/sessions/${sessionId}/messages`, {
    token,
    method: 'POST',
    body: { content: 'My teapot arrived cracked, I want a refund.' },
  });
  const runId = message.body.runId as string;
  const { events } = await readSse({ url: `${running.url}/v1/runs/${runId}/events`, token });
  expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
  const required = events.find((event) => event.type === 'approval:required') as ExternalEvent & { approvalId: string };
  return { sessionId, runId, approvalId: required.approvalId };
}

function decide(approvalId: string, token: string, decision: 'approve' | 'reject' = 'approve') {
  return (server as TestServer).request(`/v1/approvals/${approvalId}`, { token, method: 'POST', body: { decision } });
}

function auditOf(sessionId: string) {
  return new SqliteAuditLog({ database: (server as TestServer).server.store.database })
    .listAudit({ sessionId })
    .map(({ tool, decision, rule, approver, outcome }) => ({ tool, decision, rule, approver, outcome }));
}

describe('four eyes: an approver never decides his own request', () => {
  it('refuses with 403 self_approval when an approver decides an approval of his own session, and audits who tried', async () => {
    server = await startTestServer({ auth });
    const { sessionId, approvalId } = await requestRefund(tokens.dual);

    for (const decision of ['approve', 'reject'] as const) {
      expect(await decide(approvalId, tokens.dual, decision)).toEqual({
        status: 403,
        body: {
          error: {
            code: 'self_approval',
            message: `approval ${approvalId} was requested in your own session; under the four-eyes rule another approver of your tenant must decide it`,
            approvalId,
            rule: 'four_eyes',
          },
        },
      });
    }
    expect(server.server.approvals.getApproval(approvalId)).toMatchObject({ status: 'pending', approver: undefined });
    expect(auditOf(sessionId).filter((entry) => entry.tool === 'apply_refund')).toEqual([
      {
        tool: 'apply_refund',
        decision: 'denied',
        rule: 'four_eyes',
        approver: 'C1001',
        outcome: 'self_approval_refused',
      },
      {
        tool: 'apply_refund',
        decision: 'denied',
        rule: 'four_eyes',
        approver: 'C1001',
        outcome: 'self_approval_refused',
      },
    ]);
    const session = await server.request(`/v1/sessions/${sessionId}`, { token: tokens.dual });
    expect(session.body).toMatchObject({ status: 'awaiting_approval', pendingApprovals: [{ approvalId }] });
  });

  it('lets another approver of the same tenant decide it, and the refund runs once', async () => {
    server = await startTestServer({ auth });
    const { sessionId, runId, approvalId } = await requestRefund(tokens.dual);
    expect((await decide(approvalId, tokens.dual)).status).toBe(403);
    expect(await decide(approvalId, tokens.staff)).toEqual({
      status: 202,
      body: { approvalId, decision: 'approved', runId, pending: 0, resumed: true },
    });
    await server.server.idle();
    expect(server.server.approvals.getApproval(approvalId)).toMatchObject({ status: 'approved', approver: 'S9001' });
    expect(auditOf(sessionId).filter((entry) => entry.tool === 'apply_refund')).toEqual([
      {
        tool: 'apply_refund',
        decision: 'denied',
        rule: 'four_eyes',
        approver: 'C1001',
        outcome: 'self_approval_refused',
      },
      { tool: 'apply_refund', decision: 'approved', rule: expect.any(String), approver: 'S9001', outcome: 'ok' },
    ]);
  });

  it('lets an approver decide in his own session when the server allows self-approval', async () => {
    server = await startTestServer({ auth, allowSelfApproval: true });
    const { approvalId } = await requestRefund(tokens.dual);
    expect(await decide(approvalId, tokens.dual)).toMatchObject({ status: 202, body: { decision: 'approved' } });
  });
});

describe('approvals are tenant-scoped', () => {
  it("answers another tenant's approver with 404, even with the same user id as an approver of the tenant, and changes nothing", async () => {
    server = await startTestServer({ auth });
    const { sessionId, approvalId } = await requestRefund(tokens.alice);
    for (const token of [tokens.otherStaff, tokens.mallory]) {
      expect(await decide(approvalId, token)).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: `no approval ${approvalId}` } },
      });
      expect((await server.request(`/v1/sessions/${sessionId}`, { token })).status).toBe(404);
    }
    expect(server.server.approvals.getApproval(approvalId)).toMatchObject({ status: 'pending' });
    expect(auditOf(sessionId).filter((entry) => entry.rule === 'four_eyes')).toEqual([]);
  });

  it('answers a customer without the approver role with 403, whoever owns the session', async () => {
    server = await startTestServer({ auth });
    const { approvalId } = await requestRefund(tokens.alice);
    for (const token of [tokens.alice, tokens.bob]) {
      expect((await decide(approvalId, token)).body).toMatchObject({ error: { code: 'forbidden' } });
    }
    expect(server.server.approvals.getApproval(approvalId)).toMatchObject({ status: 'pending' });
  });
});
