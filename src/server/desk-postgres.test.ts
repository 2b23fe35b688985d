import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import type { AuthConfig } from './auth-config.js';
import type { TimelineStep } from './run-timeline.js';
import { openInboxStream } from './test-support/inbox-stream.js';
import { startPostgresTestNode } from './test-support/postgres-test-node.js';
import { requestJson } from './test-support/request-json.js';
import { readSse } from './test-support/sse-client.js';
import { testAuth, testTokens } from './test-support/test-server.js';

const cluster = setUpPostgresCluster();

const staff2 = 'staff-two-token-0006-0123456789abcdef';
const auth: AuthConfig = {
  tokens: [...testAuth.tokens, { token: staff2, tenantId: 'shop', userId: 'S9002', roles: ['approver'] }],
};

describe.skipIf(cluster.skip)("the approver's desk on PostgreSQL, two nodes", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('takes an approval decided on node A out of an inbox open on node B, and shows its run and audit there', async () => {
    const schema = cluster.freshSchema();
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-pg-desk-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const start = async () => {
      const node = await startPostgresTestNode({ connectionString: cluster.connectionString, schema, dataDir, auth });
      cleanups.push(() => node.close());
      return node;
    };
    const a = await start();
    const b = await start();

    const inboxOnB = await openInboxStream({ url: b.url, token: staff2 });
    const otherTenantOnB = await openInboxStream({ url: b.url, token: testTokens.mallory });
    cleanups.push(inboxOnB.close, otherTenantOnB.close);
    await inboxOnB.waitFor((snapshot) => snapshot.approvals.length === 0);
    await otherTenantOnB.waitFor((snapshot) => snapshot.approvals.length === 0);

    const session = await requestJson(a.url, '/v1/sessions', { token: testTokens.alice, method: 'POST' });
    const sessionId = session.body.id as string;
    const asked = await requestJson(a.url, `/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      body: { content: 'My teapot arrived cracked, I want a refund.' },
    });
    const runId = asked.body.runId as string;
    const waiting = await readSse({ url: `${a.url}/v1/runs/${runId}/events`, token: testTokens.alice });
    const required = waiting.events.find((event) => event.type === 'approval:required') as ExternalEvent & {
      approvalId: string;
    };

    const arrived = await inboxOnB.waitFor((snapshot) => snapshot.approvals.length === 1);
    expect(arrived.approvals[0]).toMatchObject({
      approvalId: required.approvalId,
      runId,
      requestedBy: 'C1001',
      blocked: null,
    });
    // Asked on A, polled on B: within a second of its row.
    expect(arrived.receivedAt - Date.parse(arrived.approvals[0]?.createdAt ?? '')).toBeLessThan(1000);

    const decided = await requestJson(a.url, '/v1/desk/decisions', {
      token: testTokens.staff,
      method: 'POST',
      body: { approvalIds: [required.approvalId], decision: 'approve', reason: 'checked' },
    });
    expect(decided.body.results).toEqual([expect.objectContaining({ ok: true, decision: 'approved' })]);
    const decidedAt = Date.now();
    const emptied = await inboxOnB.waitFor((snapshot) => snapshot.approvals.length === 0);
    expect(emptied.receivedAt - decidedAt).toBeLessThan(1500);
    expect(otherTenantOnB.snapshots.every((snapshot) => snapshot.approvals.length === 0)).toBe(true);

    // The resumed run, on whichever node: its timeline and the audit read on B.
    let timeline = await requestJson(b.url, `/v1/desk/runs/${runId}`, { token: staff2 });
    for (let tries = 0; (timeline.body.run as { status: string }).status !== 'completed' && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      timeline = await requestJson(b.url, `/v1/desk/runs/${runId}`, { token: staff2 });
    }
    const refund = (timeline.body.steps as TimelineStep[]).find(
      (step) => step.kind === 'tool' && step.tool === 'apply_refund',
    );
    expect(refund).toMatchObject({
      gate: { decision: 'approved' },
      approval: { status: 'approved', approver: 'S9001', reason: 'checked' },
      result: 'ok',
    });
    const audit = await requestJson(b.url, '/v1/desk/audit?tool=apply_refund&outcome=ok', { token: staff2 });
    expect(audit.body.chain).toMatchObject({ status: 'verified', breaks: [] });
    expect(audit.body.rows).toEqual([expect.objectContaining({ tool: 'apply_refund', approver: 'S9001' })]);
  });
});
