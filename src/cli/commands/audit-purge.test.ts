import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../gate/audit-log.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { auditPurgeCommand } from './audit-purge.js';

const day = 86_400_000;
const now = Date.UTC(2026, 0, 1);
let dataDirectory: string;
beforeEach(() => {
  dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-audit-purge-'));
});
afterEach(() => rmSync(dataDirectory, { recursive: true, force: true }));

const entry = (toolCallId: string, at: number): AuditEntry => ({
  at,
  sessionId: 'session-1',
  runId: 'run-1',
  step: 1,
  toolCallId,
  tool: 'send_payment',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 500 },
  decision: 'auto_approved',
  rule: 'payment_under_100',
  approver: undefined,
  outcome: 'ok',
  durationMs: 1,
});

function withAudit<Result>(work: (audit: SqliteAuditLog) => Result): Result {
  const store = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
  try {
    return work(new SqliteAuditLog({ database: store.database }));
  } finally {
    store.close();
  }
}

const purge = (...args: string[]) =>
  auditPurgeCommand({ args: [...args, '--data-dir', dataDirectory, '--by', 'ops'], now: () => now });

describe('arbiter audit purge', () => {
  it('archives and deletes rows older than the given days, keeps younger ones, and audits the purge', async () => {
    withAudit((audit) => {
      audit.append(entry('call_old', now - 500 * day));
      audit.append(entry('call_young', now - 100 * day));
    });
    const archive = join(dataDirectory, 'audit-archive.jsonl');
    const result = await purge('--older-than', '400', '--archive', archive);
    expect(result).toEqual({
      exitCode: 0,
      stdout: [`purged 1 audit row older than 2024-11-27T00:00:00.000Z, archived to ${archive}`],
      stderr: [],
    });
    const archived = readFileSync(archive, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEntry);
    expect(archived.map((row) => row.toolCallId)).toEqual(['call_old']);
    const rows = withAudit((audit) => audit.listAudit());
    expect(rows.map((row) => [row.toolCallId, row.tool, row.approver])).toEqual([
      ['call_young', 'send_payment', undefined],
      [`audit_purge_${now}`, 'arbiter.audit_purge', 'ops'],
    ]);
    expect(rows[1]?.arguments).toEqual({
      before: now - 400 * day,
      older_than_days: 400,
      deleted: 1,
      archive,
      // Where the cut chain now starts (issue 33): unsigned unless ARBITER_AUDIT_KEY is set.
      checkpoint: {
        chain_starts: {},
        chains: [{ tenant: '', writer: 'sqlite', seq: 1, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }],
        // The store's origin seal (issue 45): an origin changed after this purge still shows.
        origin: expect.stringMatching(/^[0-9a-f]{64}$/),
        signature: null,
      },
    });
  });

  it('refuses, with exit code 2 and nothing deleted, days below the retention, an existing archive, bad usage', async () => {
    withAudit((audit) => audit.append(entry('call_old', now - 500 * day)));
    const refused = await purge('--older-than', '90');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr[0]).toBe(
      'arbiter: the audit log keeps 400 days: rows older than 90 days cannot be purged (ask for 400 or more)',
    );
    const lowered = await auditPurgeCommand({
      args: ['--older-than', '90', '--data-dir', dataDirectory],
      minimumRetentionDays: 20,
      now: () => now,
    });
    expect(lowered.stderr[0]).toBe(
      'arbiter: the audit log keeps 30 days: rows older than 20 days cannot be purged (ask for 30 or more)',
    );
    const existing = join(dataDirectory, 'taken.jsonl');
    writeFileSync(existing, 'an earlier archive\n');
    const overwrite = await purge('--older-than', '400', '--archive', existing);
    expect(overwrite.exitCode).toBe(2);
    expect(overwrite.stderr[0]).toBe(`arbiter: --archive ${existing} already exists: give a new file`);
    expect(readFileSync(existing, 'utf8')).toBe('an earlier archive\n');
    expect((await purge()).stderr[0]).toBe('arbiter: audit purge needs --older-than DAYS');
    expect((await purge('--older-than', 'soon')).stderr[0]).toBe(
      'arbiter: --older-than must be a number of days (0 or more), got "soon"',
    );
    expect((await purge('--older-than', '400', '--bogus')).exitCode).toBe(2);
    expect(withAudit((audit) => audit.listAudit()).map((row) => row.toolCallId)).toEqual(['call_old']);
  });

  it('answers exit code 2, creating nothing, when there is no store', async () => {
    const result = await purge('--older-than', '400');
    expect(result.exitCode).toBe(2);
    expect(result.stderr[0]).toBe(`arbiter: no arbiter store at ${join(dataDirectory, 'arbiter.db')}`);
    expect(existsSync(join(dataDirectory, 'arbiter.db'))).toBe(false);
  });
});
