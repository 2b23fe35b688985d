import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import type { AuthConfig } from './auth-config.js';
import type { InboxItem } from './desk-inbox.js';
import type { TimelineStep } from './run-timeline.js';
import { openInboxStream } from './test-support/inbox-stream.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testAuth, testTokens } from './test-support/test-server.js';

const tokens = {
  ...testTokens,
  dual: 'dual-role-token-0005-0123456789abcdef',
  staff2: 'staff-two-token-0006-0123456789abcdef',
  auditor: 'auditor-token-0007-0123456789abcdef',
  otherStaff: 'other-staff-token-0008-0123456789abcdef',
} as const;

/** testAuth (alice C1001, bob C1002, staff S9001 of shop; mallory C1001 of other-shop, customer and approver) plus these. */
const auth: AuthConfig = {
  tokens: [
    ...testAuth.tokens,
    { token: tokens.dual, tenantId: 'shop', userId: 'C1001', roles: ['customer', 'approver'] },
    { token: tokens.staff2, tenantId: 'shop', userId: 'S9002', roles: ['approver'] },
    { token: tokens.auditor, tenantId: 'shop', userId: 'A7001', roles: ['auditor'] },
    { token: tokens.otherStaff, tenantId: 'other-shop', userId: 'S9001', roles: ['approver'] },
  ],
};

let server: TestServer | undefined;
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await server?.stop();
  server = undefined;
});

async function start(): Promise<TestServer> {
  server = await startTestServer({ auth, inboxPollMs: 100 });
  return server;
}

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

async function inbox(token: string): Promise<InboxItem[]> {
  const answer = await (server as TestServer).request('/v1/desk/inbox', { token });
  expect(answer.status).toBe(200);
  return answer.body.approvals as InboxItem[];
}

function decide(token: string, approvalIds: string[], decision: 'approve' | 'reject', reason?: string) {
  return (server as TestServer).request('/v1/desk/decisions', {
    token,
    method: 'POST',
    body: { approvalIds, decision, ...(reason === undefined ? {} : { reason }) },
  });
}

describe('the approver desk over HTTP', () => {
  it("lists a waiting refund in its own tenant's inboxes only, live, and takes it out once another approver decides it", async () => {
    const running = await start();
    const shopInbox = await openInboxStream({ url: running.url, token: tokens.staff2 });
    const otherInbox = await openInboxStream({ url: running.url, token: tokens.otherStaff });
    closers.push(shopInbox.close, otherInbox.close);
    await shopInbox.waitFor((snapshot) => snapshot.approvals.length === 0);
    await otherInbox.waitFor((snapshot) => snapshot.approvals.length === 0);

    const { approvalId, runId, sessionId } = await requestRefund(tokens.alice);
    const arrived = await shopInbox.waitFor((snapshot) => snapshot.approvals.length === 1);
    const item = arrived.approvals[0] as InboxItem;
    expect(item).toMatchObject({
      approvalId,
      runId,
      sessionId,
      tool: 'apply_refund',
      requestedBy: 'C1001',
      ownRequest: false,
      blocked: null,
    });
    expect(item.arguments).toMatchObject({ order_id: 'SO20260902', amount_cents: 20000 });
    // Bound parameters never reach the card: the customer id comes from the principal.
    expect(JSON.stringify(item.arguments)).not.toContain('C1001');
    expect(Date.parse(item.expiresAt)).toBeGreaterThan(Date.now());
    expect(arrived.receivedAt - Date.parse(item.createdAt)).toBeLessThan(1000);

    // The other tenant's approver sees nothing, cannot decide it, cannot read its run.
    expect(await inbox(tokens.otherStaff)).toEqual([]);
    const foreign = await decide(tokens.otherStaff, [approvalId], 'approve');
    expect(foreign.body.results).toEqual([expect.objectContaining({ approvalId, ok: false, status: 404 })]);
    expect((await running.request(`/v1/desk/runs/${runId}`, { token: tokens.otherStaff })).status).toBe(404);

    // Decided through the plain approvals API (another client): the open inbox empties.
    const decided = await running.request(`/v1/approvals/${approvalId}`, {
      token: tokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    await shopInbox.waitFor((snapshot) => snapshot.approvals.length === 0);
    expect(otherInbox.snapshots.every((snapshot) => snapshot.approvals.length === 0)).toBe(true);
  });

  it('shows four eyes before anyone tries, and refuses an approver his own request while another approves it', async () => {
    const running = await start();
    const { approvalId, runId } = await requestRefund(tokens.dual);
    const own = await inbox(tokens.dual);
    expect(own).toEqual([expect.objectContaining({ approvalId, ownRequest: true, blocked: 'four_eyes' })]);
    expect(await inbox(tokens.staff)).toEqual([
      expect.objectContaining({ approvalId, ownRequest: false, blocked: null }),
    ]);

    const refused = await decide(tokens.dual, [approvalId], 'approve');
    expect(refused.status).toBe(200);
    expect(refused.body.results).toEqual([
      expect.objectContaining({ approvalId, ok: false, status: 403, code: 'self_approval' }),
    ]);
    expect(await inbox(tokens.staff)).toHaveLength(1);

    const approved = await decide(tokens.staff, [approvalId], 'approve', 'photo checked');
    expect(approved.body.results).toEqual([expect.objectContaining({ approvalId, ok: true, decision: 'approved' })]);
    await running.server.idle();
    const twice = await decide(tokens.staff2, [approvalId], 'reject');
    expect(twice.body.results).toEqual([expect.objectContaining({ ok: false, status: 409, code: 'already_decided' })]);

    const timeline = await running.request(`/v1/desk/runs/${runId}`, { token: tokens.auditor });
    expect(timeline.status).toBe(200);
    const steps = timeline.body.steps as TimelineStep[];
    const refund = steps.find((step) => step.kind === 'tool' && step.tool === 'apply_refund');
    expect(refund).toMatchObject({
      validation: 'passed',
      result: 'ok',
      gate: { decision: 'approved' },
      approval: { approvalId, status: 'approved', approver: 'S9001', reason: 'photo checked' },
      outcome: 'ok',
      replayed: false,
    });
    const models = steps.filter((step) => step.kind === 'model');
    expect(models.length).toBeGreaterThan(1);
    expect(models.every((step) => step.kind === 'model' && step.tokens !== null)).toBe(true);
    expect(steps.filter((step) => step.kind === 'run').map((step) => step.kind === 'run' && step.event)).toEqual([
      'start',
      'end',
      'start',
      'end',
    ]);
  });

  it('decides several at once, each through the same rules', async () => {
    const running = await start();
    const first = await requestRefund(tokens.alice);
    const second = await requestRefund(tokens.alice);
    const items = await inbox(tokens.staff);
    expect(items.map((item) => item.approvalId)).toEqual([second.approvalId, first.approvalId]);
    const answer = await decide(
      tokens.staff,
      [first.approvalId, second.approvalId, 'appr_missing'],
      'reject',
      'no photo',
    );
    expect(answer.body.results).toEqual([
      expect.objectContaining({ approvalId: first.approvalId, ok: true, decision: 'rejected' }),
      expect.objectContaining({ approvalId: second.approvalId, ok: true, decision: 'rejected' }),
      expect.objectContaining({ approvalId: 'appr_missing', ok: false, status: 404 }),
    ]);
    await running.server.idle();
    expect(await inbox(tokens.staff)).toEqual([]);
  });

  it('shows an expired approval as expired and refuses to approve it', async () => {
    const running = await start();
    const { approvalId } = await requestRefund(tokens.alice);
    const database = new Database(join(running.dataDir, 'arbiter.db'));
    database.prepare('UPDATE approvals SET expires_at = ? WHERE approval_id = ?').run(Date.now() - 1000, approvalId);
    database.close();
    const items = await inbox(tokens.staff);
    expect(items).toEqual([expect.objectContaining({ approvalId, blocked: 'expired' })]);
    const answer = await decide(tokens.staff, [approvalId], 'approve');
    expect(answer.body.results).toEqual([
      expect.objectContaining({ approvalId, ok: false, status: 409, code: 'approval_expired' }),
    ]);
  });

  it('keeps customers, auditors and callers without a bearer to what their role allows', async () => {
    const running = await start();
    const { approvalId, runId } = await requestRefund(tokens.alice);
    for (const token of [tokens.alice, tokens.bob]) {
      expect((await running.request('/v1/desk/inbox', { token })).status).toBe(403);
      expect((await running.request('/v1/desk/inbox/events', { token })).status).toBe(403);
      expect((await decide(token, [approvalId], 'approve')).status).toBe(403);
      expect((await running.request(`/v1/desk/runs/${runId}`, { token })).status).toBe(403);
      expect((await running.request('/v1/desk/audit', { token })).status).toBe(403);
    }
    // An auditor reads, and decides nothing.
    expect((await running.request('/v1/desk/inbox', { token: tokens.auditor })).status).toBe(403);
    expect((await decide(tokens.auditor, [approvalId], 'approve')).status).toBe(403);
    expect((await running.request('/v1/desk/audit', { token: tokens.auditor })).status).toBe(200);

    // A page elsewhere posting a form (no bearer; the desk uses no cookies): 401, nothing decided.
    const forged = await fetch(`${running.url}/v1/desk/decisions`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: JSON.stringify({ approvalIds: [approvalId], decision: 'approve' }),
    });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('access-control-allow-origin')).toBeNull();
    expect(await inbox(tokens.staff)).toHaveLength(1);

    const page = await fetch(`${running.url}/desk`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('/desk.js');

    const tooMany = await decide(
      tokens.staff,
      Array.from({ length: 51 }, (_, index) => `appr_${index}`),
      'approve',
    );
    expect(tooMany.status).toBe(400);
  });

  it("shows the tenant's audit rows, filtered, with the chain verified, then where a changed row breaks it", async () => {
    const running = await start();
    const { approvalId } = await requestRefund(tokens.alice);
    await decide(tokens.staff, [approvalId], 'approve');
    await running.server.idle();
    // Another tenant's call, in the same log.
    const session = await running.request('/v1/sessions', { token: tokens.mallory, method: 'POST' });
    await running.request(`/v1/sessions/${session.body.id as string}/messages`, {
      token: tokens.mallory,
      method: 'POST',
      body: { content: 'Where is my order SO20260901?' },
    });
    await running.server.idle();

    const all = await running.request('/v1/desk/audit', { token: tokens.auditor });
    expect(all.body.chain).toMatchObject({ status: 'verified', breaks: [] });
    const rows = all.body.rows as {
      auditId: number;
      tool: string;
      userId: string;
      outcome: string;
      approver: string;
    }[];
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((row) => row.userId === 'C1001')).toBe(true);
    expect(rows.map((row) => row.auditId)).toEqual([...rows.map((row) => row.auditId)].sort((a, b) => b - a));

    const refunds = await running.request('/v1/desk/audit?tool=apply_refund&outcome=ok&user=S9001', {
      token: tokens.staff,
    });
    expect(refunds.body.rows).toEqual([
      expect.objectContaining({ tool: 'apply_refund', approver: 'S9001', outcome: 'ok' }),
    ]);
    const future = await running.request(`/v1/desk/audit?from=${new Date(Date.now() + 60_000).toISOString()}`, {
      token: tokens.staff,
    });
    expect(future.body.rows).toEqual([]);
    expect((await running.request('/v1/desk/audit?from=yesterday', { token: tokens.staff })).status).toBe(400);

    const other = await running.request('/v1/desk/audit', { token: tokens.otherStaff });
    const otherRows = other.body.rows as { userId: string }[];
    expect(otherRows.length).toBeGreaterThan(0);
    expect(otherRows.every((row) => row.userId === 'C1001')).toBe(true);
    expect(JSON.stringify(otherRows)).not.toContain('apply_refund');

    const exported = await fetch(`${running.url}/v1/desk/audit?format=ndjson&tool=apply_refund`, {
      headers: { authorization: `Bearer ${tokens.auditor}` },
    });
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="arbiter-audit-/);
    expect(exported.headers.get('x-audit-chain')).toBe('verified');
    const lines = (await exported.text()).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { tool: string }).tool)).toEqual(['apply_refund']);

    const tampered = rows.find((row) => row.tool === 'apply_refund') as { auditId: number };
    const database = new Database(join(running.dataDir, 'arbiter.db'));
    database.exec('DROP TRIGGER audit_log_refuses_update');
    database.prepare("UPDATE audit_log SET approver = 'C1001' WHERE audit_id = ?").run(tampered.auditId);
    database.close();
    const broken = await running.request('/v1/desk/audit', { token: tokens.auditor });
    expect(broken.body.chain).toMatchObject({
      status: 'broken',
      breaks: [expect.objectContaining({ auditId: tampered.auditId })],
    });
    // The other tenant's chain still holds, and he is not told of this one's break.
    expect((await running.request('/v1/desk/audit', { token: tokens.otherStaff })).body.chain).toMatchObject({
      status: 'verified',
      breaks: [],
    });
  });
});
