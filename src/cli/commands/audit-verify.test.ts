import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../gate/audit-log.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { auditAnchorCommand } from './audit-anchor.js';
import { auditPurgeCommand } from './audit-purge.js';
import { auditVerifyCommand } from './audit-verify.js';

const day = 86_400_000;
const anchorKey = 'k-1-0123456789abcdef0123456789abc';
let dataDirectory: string;
beforeEach(() => {
  dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-audit-verify-'));
});
afterEach(() => rmSync(dataDirectory, { recursive: true, force: true }));

const entry = (toolCallId: string, at: number, tenantId = 'bank'): AuditEntry => ({
  at,
  sessionId: 'session-1',
  runId: 'run-1',
  step: 1,
  toolCallId,
  tool: 'send_payment',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 500 },
  decision: 'approved',
  rule: 'large_payment',
  approver: 'li.wei',
  outcome: 'ok',
  durationMs: 1,
  tenantId,
  userId: 'U1',
});

function withDatabase(work: (store: ReturnType<typeof openSqliteStore>) => void): void {
  const store = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
  try {
    work(store);
  } finally {
    store.close();
  }
}

const verify = (key?: string) => auditVerifyCommand({ args: ['--data-dir', dataDirectory], key });

describe('arbiter audit verify', () => {
  it('passes an untouched log and one purged by `arbiter audit purge`, signed with ARBITER_AUDIT_KEY', async () => {
    withDatabase((store) => {
      const audit = new SqliteAuditLog({ database: store.database });
      audit.append(entry('call_old', Date.now() - 500 * day));
      audit.append(entry('call_1', Date.now()));
      audit.append(entry('call_2', Date.now(), 'other-bank'));
    });
    expect((await verify()).stdout[0]).toBe('audit log intact: 3 rows, 2 tenants, 2 chains');
    process.env.ARBITER_AUDIT_KEY = 'secret-1';
    try {
      const purged = await auditPurgeCommand({ args: ['--older-than', '400', '--data-dir', dataDirectory] });
      expect(purged.exitCode).toBe(0);
    } finally {
      delete process.env.ARBITER_AUDIT_KEY;
    }
    const intact = await verify('secret-1');
    expect(intact.exitCode).toBe(0);
    expect(intact.stdout[0]).toBe('audit log intact: 3 rows, 3 tenants, 3 chains');
    expect(intact.stdout.slice(1).every((line) => /^head (-|bank|other-bank) [0-9a-f]{64}$/.test(line))).toBe(true);
    const unkeyed = await verify();
    expect(unkeyed.stdout[0]).toBe(
      'audit log intact: 3 rows, 3 tenants, 3 chains; 1 purge checkpoint not signed (plain hash, no ARBITER_AUDIT_KEY)',
    );
    const wrongKey = await verify('another');
    expect(wrongKey.exitCode).toBe(1);
    expect(wrongKey.stdout).toContain('row 4: purge checkpoint is not signed with the configured ARBITER_AUDIT_KEY');
    // Without a checkpoint it can trust, the chain the purge cut reads as cut by hand.
    expect(wrongKey.stdout).toContain(
      'row 2 (tenant bank) follows rows that were deleted (its previous hash is unknown)',
    );
  });

  it('exits 1 and names each row changed, deleted or inserted through SQL', async () => {
    withDatabase((store) => {
      const audit = new SqliteAuditLog({ database: store.database });
      for (const id of ['call_1', 'call_2', 'call_3', 'call_4', 'call_5']) audit.append(entry(id, Date.now()));
      store.database.exec(`
        DROP TRIGGER audit_log_refuses_update; DROP TRIGGER audit_log_refuses_delete;
        UPDATE audit_log SET approver = 'mallory' WHERE tool_call_id = 'call_2';
        DELETE FROM audit_log WHERE tool_call_id = 'call_4';
        INSERT INTO audit_log (at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments, decision,
          outcome, duration_ms, tenant_id) VALUES (1, 'run-1', 9, 'call_x', 'send_payment', 'irreversible', 'h', '{}',
          'approved', 'ok', 0, 'bank');
      `);
    });
    const result = await verify();
    expect(result.exitCode).toBe(1);
    expect(result.stdout.slice(0, 4)).toEqual([
      'row 2 (tenant bank) was changed after it was written (its content does not match its hash)',
      'row 5 (tenant bank) follows rows that were deleted (its previous hash is unknown)',
      'row 6 (tenant bank) has no chain hash but was written after the chain began: inserted outside the audit log',
      'audit log tampered: 3 findings in 5 rows',
    ]);
  });

  it('exits 1 for rows without hashes forged after the chain began: a new tenant, no tenant, an id before the chain', async () => {
    withDatabase((store) => {
      const audit = new SqliteAuditLog({ database: store.database });
      audit.append(entry('call_1', Date.now()));
      const forge = (id: string, tenant: string) =>
        store.database.exec(`
          INSERT INTO audit_log (${id === '' ? '' : 'audit_id, '}at, run_id, step, tool_call_id, tool, side_effect,
            arguments_hash, arguments, decision, outcome, duration_ms, tenant_id)
          VALUES (${id === '' ? '' : `${id}, `}1, 'run-x', 1, 'call_x', 'send_payment', 'irreversible', 'h', '{}',
            'approved', 'ok', 0, ${tenant})`);
      forge('', "'mallory-corp'");
      forge('', 'NULL');
      forge('-1', "'bank'");
    });
    const result = await verify();
    expect(result.exitCode).toBe(1);
    expect(result.stdout.slice(0, 4)).toEqual([
      'row -1 (tenant bank) ends 1 rows from before the chain began where 0 were recorded when it began: rows were inserted among them',
      'row 2 (tenant mallory-corp) has no chain hash but was written after the chain began: inserted outside the audit log',
      'row 3 (tenant -) has no chain hash but was written after the chain began: inserted outside the audit log',
      'audit log tampered: 3 findings in 4 rows; 1 rows from before the chain not checked',
    ]);
  });

  it('exports a signed anchor, and with it names rows deleted from the end of a chain that verify alone passes', async () => {
    withDatabase((store) => {
      const audit = new SqliteAuditLog({ database: store.database });
      for (const id of ['call_1', 'call_2', 'call_3']) audit.append(entry(id, Date.now()));
      audit.append(entry('call_4', Date.now(), 'other-bank'));
    });
    const anchorFile = join(dataDirectory, 'anchor.json');
    expect((await auditAnchorCommand({ args: ['--data-dir', dataDirectory], key: undefined })).exitCode).toBe(2);
    const written = await auditAnchorCommand({
      args: ['--data-dir', dataDirectory, '--out', anchorFile],
      key: anchorKey,
    });
    expect(written).toMatchObject({ exitCode: 0, stdout: [`anchor of 4 rows, 2 chains written to ${anchorFile}`] });
    const anchored = (key: string) =>
      auditVerifyCommand({ args: ['--data-dir', dataDirectory, '--anchor', anchorFile], key });
    expect((await anchored(anchorKey)).stdout[0]).toBe(
      'audit log intact: 4 rows, 2 tenants, 2 chains; 2 anchored heads checked, store and origin checked',
    );
    withDatabase((store) => {
      store.database.exec(`DROP TRIGGER audit_log_refuses_delete; DELETE FROM audit_log WHERE tool_call_id = 'call_3'`);
    });
    expect(await verify(anchorKey)).toMatchObject({ exitCode: 0 });
    const truncated = await anchored(anchorKey);
    expect(truncated.exitCode).toBe(1);
    expect(truncated.stdout[0]).toMatch(
      /^chain sqlite of tenant bank ends at row 2 \(seq 2\) where the anchor of .+ holds row 3 \(seq 3\): rows were deleted after the anchor$/,
    );
    expect(await anchored('another key')).toMatchObject({
      exitCode: 2,
      stderr: [`arbiter: ${anchorFile}: audit anchor is not signed with the configured ARBITER_AUDIT_KEY`],
    });
    // A changed row is a finding of its own: a log with findings gets no anchor.
    withDatabase((store) => {
      store.database.exec(`DROP TRIGGER audit_log_refuses_update; UPDATE audit_log SET approver = 'mallory'`);
    });
    const refused = await auditAnchorCommand({ args: ['--data-dir', dataDirectory], key: anchorKey });
    expect(refused.exitCode).toBe(1);
  });

  it('reads an anchor of the first format (no store, no origin), says so, and still names the origin widened by its seal', async () => {
    withDatabase((store) => {
      const audit = new SqliteAuditLog({ database: store.database });
      for (const id of ['call_1', 'call_2']) audit.append(entry(id, Date.now()));
    });
    const written = JSON.parse(
      (await auditAnchorCommand({ args: ['--data-dir', dataDirectory], key: anchorKey })).stdout[0] as string,
    ) as { at: number; rows: number; chains: unknown[] };
    const { at, rows, chains } = written;
    const anchorFile = join(dataDirectory, 'anchor-v1.json');
    writeFileSync(
      anchorFile,
      JSON.stringify({
        format: 'arbiter-audit-anchor-v1',
        at,
        rows,
        chains,
        signature: createHmac('sha256', anchorKey)
          .update(canonicalJson(['arbiter-audit-anchor-v1', { at, rows, chains }]))
          .digest('hex'),
      }),
    );
    const anchored = () =>
      auditVerifyCommand({ args: ['--data-dir', dataDirectory, '--anchor', anchorFile], key: anchorKey });
    expect(await anchored()).toEqual({
      exitCode: 0,
      stdout: [
        'audit log intact: 2 rows, 1 tenant, 1 chain; 1 anchored head checked (an anchor of the first format: it names no store and no origin, so neither was checked; take a new anchor)',
        expect.stringMatching(/^head bank [0-9a-f]{64}$/),
      ],
      stderr: [],
    });
    withDatabase((store) => {
      store.database.exec(`
        DROP TRIGGER audit_chain_origin_refuses_update;
        UPDATE audit_chain_origin SET rows_then = rows_then + 1, started_at = ${Date.now() + day};
        INSERT INTO audit_log (audit_id, at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
          decision, approver, outcome, duration_ms, tenant_id) VALUES (0, ${Date.now()}, 'run-1', 9, 'call_x',
          'send_payment', 'irreversible', 'h', '{}', 'approved', 'S9001', 'ok', 0, 'bank');
      `);
    });
    const widened = await anchored();
    expect(widened.exitCode).toBe(1);
    expect(widened.stdout.slice(0, 2)).toEqual([
      'row 0 (tenant bank) has no chain hash but was written after the chain began: inserted outside the audit log',
      expect.stringMatching(
        /^row 1 \(tenant bank\) begins chain sqlite from another origin than this store records now/,
      ),
    ]);
  });

  it('anchors an empty store, and with that anchor names an origin widened before the first row was written', async () => {
    withDatabase(() => {});
    const anchorFile = join(dataDirectory, 'anchor-at-creation.json');
    const written = await auditAnchorCommand({
      args: ['--data-dir', dataDirectory, '--out', anchorFile],
      key: anchorKey,
    });
    expect(written).toMatchObject({ exitCode: 0, stdout: [`anchor of 0 rows, 0 chains written to ${anchorFile}`] });
    withDatabase((store) => {
      store.database.exec(`
        DROP TRIGGER audit_chain_origin_refuses_update;
        UPDATE audit_chain_origin SET rows_then = rows_then + 1, started_at = ${Date.now() + day};
        INSERT INTO audit_log (audit_id, at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
          decision, approver, outcome, duration_ms, tenant_id) VALUES (0, ${Date.now()}, 'run-1', 9, 'call_x',
          'send_payment', 'irreversible', 'h', '{}', 'approved', 'S9001', 'ok', 0, 'bank');
      `);
      new SqliteAuditLog({ database: store.database }).append(entry('call_1', Date.now()));
    });
    // The chain began after the origin was widened, so it was sealed with it: only the anchor tells.
    expect(await verify()).toMatchObject({ exitCode: 0 });
    const anchored = await auditVerifyCommand({
      args: ['--data-dir', dataDirectory, '--anchor', anchorFile],
      key: anchorKey,
    });
    expect(anchored.exitCode).toBe(1);
    expect(anchored.stdout.slice(0, 2)).toEqual([
      expect.stringMatching(
        /^audit_chain_origin records 1 rows up to row 0 before \S+ where the anchor of \S+ holds 0 rows up to row 0 before \S+: the record of when the chain began was changed$/,
      ),
      'row 0 (tenant bank) has no chain hash but was written after the chain began: inserted outside the audit log',
    ]);
  });

  it('exits 2 without a store, and on an unknown option', async () => {
    expect((await verify()).exitCode).toBe(2);
    expect((await auditVerifyCommand({ args: ['--nope'] })).exitCode).toBe(2);
  });
});
