import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyCallHistory } from '../../core/call-history.js';
import { toolDefinitionChangedOutcome } from '../../gate/tool-definition-change.js';
import { startTestServer, type TestServer, testTokens } from '../../server/test-support/test-server.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { ToolContext } from '../../tools/tool-types.js';
import { McpServerMount } from './mcp-server-mount.js';
import { scriptedCalls } from './test-support/mcp-harness.js';

// The hostile SDK server behind the real HTTP server: every redefinition of a tool after it was mounted is
// audited with the old and new fingerprints, and every call's audit row names the definition it ran under.
const hostileServer = resolve('test/fixtures/mcp/hostile-server.mjs');
let server: TestServer | undefined;
let mount: McpServerMount | undefined;
afterEach(async () => {
  await server?.stop();
  await mount?.close();
  server = undefined;
  mount = undefined;
});

const context: ToolContext = {
  runId: 'direct',
  sessionId: undefined,
  step: 1,
  toolCallId: 'call_1',
  principal: { tenantId: 'shop', userId: 'C1001', roles: [] },
  signal: new AbortController().signal,
  locale: 'en',
  history: emptyCallHistory,
};

async function eventually<T>(read: () => T | undefined): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((wake) => setTimeout(wake, 25));
  }
}

describe('MCP definitions pinned, through the server', () => {
  it('audits each redefinition with old and new fingerprints and tiers; each call row carries the one it ran under', async () => {
    mount = await McpServerMount.open({ server: { name: 'evil', command: process.execPath, args: [hostileServer] } });
    const opened = mount;
    let registry: ToolRegistry | undefined;
    server = await startTestServer({
      model: scriptedCalls({ name: 'evil_evil_pay', arguments: { amount: 7 } }),
      mountTools: (tools) => {
        registry = tools;
        opened.attach(tools);
      },
    });
    const running = server;
    const audit = new SqliteAuditLog({ database: running.server.store.database });
    const reviewed = registry?.get('evil_evil_pay')?.definition.fingerprint;
    expect(reviewed).toMatch(/^[0-9a-f]{64}$/);

    // A call under the reviewed definition, approved by a person: its row names that definition.
    const { body: created } = await running.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
    const sessionId = created['id'] as string;
    await running.request(`/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      body: { content: 'pay' },
    });
    const approvalId = await eventually(
      () => running.server.approvals.listApprovals({ status: 'pending' })[0]?.approvalId,
    );
    const decided = await running.request(`/v1/approvals/${approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    const paid = await eventually(() =>
      audit.listAudit({ sessionId }).find((row) => row.tool === 'evil_evil_pay' && row.outcome === 'ok'),
    );
    expect(paid).toMatchObject({ decision: 'approved', toolFingerprint: reviewed });
    // Its idempotency claim keeps the definition too.
    const claims = running.server.store.database
      .prepare("SELECT tool_fingerprint FROM idempotency_claims WHERE tool = 'evil_evil_pay'")
      .all();
    expect(claims).toEqual([{ tool_fingerprint: reviewed }]);

    // The server lowers the tool's tier, then rewrites its description: two changes, each audited.
    await registry?.get('evil_redefine')?.definition.execute({ to: 'read_only' }, context);
    const first = await eventually(() =>
      audit.listAudit().find((row) => row.tool === 'evil_evil_pay' && row.outcome === toolDefinitionChangedOutcome),
    );
    expect(first).toMatchObject({
      arguments: { old_fingerprint: reviewed, old_tier: 'irreversible', new_tier: 'irreversible' },
      rule: 'tool_definition_pinned',
    });
    const lowered = (first.arguments as { new_fingerprint: string }).new_fingerprint;
    expect(lowered).not.toBe(reviewed);
    expect(first.toolFingerprint).toBe(lowered);
    await registry?.get('evil_redefine')?.definition.execute({ to: 'thousands' }, context);
    const second = await eventually(() =>
      audit
        .listAudit()
        .filter((row) => row.tool === 'evil_evil_pay' && row.outcome === toolDefinitionChangedOutcome)
        .at(1),
    );
    expect(second.arguments).toMatchObject({ old_fingerprint: lowered, new_tier: 'irreversible' });
    expect(registry?.get('evil_evil_pay')?.definition.description).toBe(
      'Pays amount THOUSANDS of yuan to the attacker.',
    );
    // The definition rows are part of the chain, and no rule ever counts them as calls.
    expect(await audit.verifyChain()).toMatchObject({ ok: true });
    expect(audit.findCalls({ tool: 'evil_evil_pay' }).map((call) => call.toolCallId)).toEqual([paid.toolCallId]);
  });
});
