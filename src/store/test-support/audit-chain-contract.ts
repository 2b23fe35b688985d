import { describe, expect, it } from 'vitest';
import type { Awaitable } from '../../core/awaitable.js';
import type { AuditChainReport } from '../../gate/audit-chain.js';
import type { AuditEntry } from '../../gate/audit-log.js';
import type { AuditPurgeResult } from '../../gate/audit-retention.js';

const day = 86_400_000;

const row = (toolCallId: string, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: Date.now(),
  sessionId: 'session-a',
  runId: 'run-a',
  step: 1,
  toolCallId,
  tool: 'send_payment',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 100 },
  decision: 'approved',
  rule: 'large_payment',
  approver: 'li.wei',
  tenantId: 'bank',
  userId: 'U1',
  outcome: 'ok',
  durationMs: 1.25,
  ...overrides,
});

/** An audit log with a hash chain, and raw SQL on its database, as an attacker with the database's role has it. */
export interface AuditChainBackend {
  readonly audit: {
    append(entry: AuditEntry): Awaitable<void>;
    verifyChain(options?: { key?: string | undefined }): Awaitable<AuditChainReport>;
    purge(options: { olderThanDays: number; by: string }): Awaitable<AuditPurgeResult>;
  };
  /** Runs one statement as the application's role. */
  sql(text: string): Awaitable<unknown>;
  /** Drops or disables the triggers that keep the log append-only (what an attacker owning the table can do). */
  dropAppendOnlyTriggers(): Awaitable<void>;
  close(): Awaitable<void>;
}

/**
 * The tamper-evidence every audit log backend must have: a row changed,
 * deleted or inserted by SQL (triggers dropped) is named by `verifyChain`,
 * per tenant; a purge leaves a checkpoint the remaining chains verify from,
 * signed when a key is configured.
 *
 * @example
 * describeAuditChainContract('SqliteAuditLog', () => openSqliteChain({ auditKey }));
 */
export function describeAuditChainContract(
  name: string,
  create: (options: { auditKey?: string | undefined }) => Awaitable<AuditChainBackend>,
): void {
  describe(`${name} (audit hash chain)`, () => {
    const withBackend = async (
      work: (backend: AuditChainBackend) => Promise<void>,
      options: { auditKey?: string | undefined } = {},
    ) => {
      const backend = await create(options);
      try {
        await work(backend);
      } finally {
        await backend.close();
      }
    };
    const appendFive = async ({ audit }: AuditChainBackend) => {
      await audit.append(row('call_1'));
      await audit.append(row('call_2', { tenantId: 'other-bank', arguments: { amount_cents: 7 } }));
      await audit.append(row('call_3', { arguments: { amount_cents: 250_000 } }));
      await audit.append(row('call_4', { tenantId: undefined, userId: undefined, sideEffect: 'read' }));
      await audit.append(row('call_5', { decision: 'denied', approver: 'ops', outcome: 'not_run' }));
    };

    it('verifies an untouched log, one chain per tenant', () =>
      withBackend(async (backend) => {
        await appendFive(backend);
        const report = await backend.audit.verifyChain();
        expect(report).toMatchObject({ ok: true, rows: 5, unchained: 0, findings: [] });
        expect([...report.heads.keys()].sort()).toEqual(['', 'bank', 'other-bank']);
      }));

    it('names a row changed by UPDATE with the trigger dropped', () =>
      withBackend(async (backend) => {
        await appendFive(backend);
        await backend.dropAppendOnlyTriggers();
        await backend.sql(`UPDATE audit_log SET arguments = '{"amount_cents":2500}' WHERE tool_call_id = 'call_3'`);
        const report = await backend.audit.verifyChain();
        expect(report.ok).toBe(false);
        expect(report.findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
          { auditId: 3, kind: 'changed' },
        ]);
        expect(report.findings[0]?.message).toBe(
          'row 3 (tenant bank) was changed after it was written (its content does not match its hash)',
        );
      }));

    it('hashes the tool definition a call was made under: a fingerprint set, changed or removed later is named', () =>
      withBackend(async (backend) => {
        await backend.audit.append(row('call_1', { toolFingerprint: 'fp-reviewed' }));
        await backend.audit.append(row('call_2'));
        await backend.audit.append(row('call_3', { toolFingerprint: 'fp-reviewed' }));
        expect(await backend.audit.verifyChain()).toMatchObject({ ok: true, rows: 3 });
        await backend.dropAppendOnlyTriggers();
        await backend.sql("UPDATE audit_log SET tool_fingerprint = 'fp-swapped' WHERE tool_call_id = 'call_1'");
        await backend.sql("UPDATE audit_log SET tool_fingerprint = 'fp-added' WHERE tool_call_id = 'call_2'");
        await backend.sql("UPDATE audit_log SET tool_fingerprint = NULL WHERE tool_call_id = 'call_3'");
        const report = await backend.audit.verifyChain();
        expect(report.findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
          { auditId: 1, kind: 'changed' },
          { auditId: 2, kind: 'changed' },
          { auditId: 3, kind: 'changed' },
        ]);
      }));

    it('names the row after a DELETE, in the deleted row’s chain only', () =>
      withBackend(async (backend) => {
        await appendFive(backend);
        await backend.dropAppendOnlyTriggers();
        await backend.sql(`DELETE FROM audit_log WHERE tool_call_id = 'call_3'`);
        const report = await backend.audit.verifyChain();
        expect(report.findings.map(({ auditId, kind, tenant }) => ({ auditId, kind, tenant }))).toEqual([
          { auditId: 5, kind: 'deleted', tenant: 'bank' },
        ]);
      }));

    it('names a row INSERTed by hand, with no hash or with a made-up one', () =>
      withBackend(async (backend) => {
        await appendFive(backend);
        const insert = (hash: string) =>
          backend.sql(
            `INSERT INTO audit_log (at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
               decision, outcome, duration_ms, tenant_id, previous_hash, chain_hash)
             VALUES (${Date.now()}, 'run-a', 2, 'call_forged', 'send_payment', 'irreversible', 'hash', '{}',
               'approved', 'ok', 1, 'bank', NULL, ${hash})`,
          );
        await insert('NULL');
        await insert(`'${'0'.repeat(64)}'`);
        const report = await backend.audit.verifyChain();
        expect(report.findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
          { auditId: 6, kind: 'inserted' },
          { auditId: 7, kind: 'inserted' },
        ]);
      }));

    it('verifies after a purge from the checkpoint it records, and still names a DELETE after it', () =>
      withBackend(
        async (backend) => {
          const old = Date.now() - 500 * day;
          await backend.audit.append(row('old_1', { at: old }));
          await backend.audit.append(row('old_2', { at: old, tenantId: 'other-bank' }));
          await backend.audit.append(row('old_3', { at: old + 1 }));
          await appendFive(backend);
          expect((await backend.audit.purge({ olderThanDays: 400, by: 'retention-job' })).deleted).toBe(3);
          const report = await backend.audit.verifyChain({ key: 'k-1' });
          expect(report).toMatchObject({ ok: true, rows: 6, unsignedCheckpoints: 0 });
          // Under another key the checkpoint does not hold, so the cut chains look cut by hand.
          expect(
            (await backend.audit.verifyChain({ key: 'another key' })).findings.map(({ auditId, kind }) => ({
              auditId,
              kind,
            })),
          ).toEqual([
            { auditId: 4, kind: 'deleted' },
            { auditId: 5, kind: 'deleted' },
            { auditId: 9, kind: 'checkpoint' },
          ]);
          await backend.dropAppendOnlyTriggers();
          await backend.sql(`DELETE FROM audit_log WHERE tool_call_id = 'call_1'`);
          expect(
            (await backend.audit.verifyChain({ key: 'k-1' })).findings.map(({ auditId, kind }) => ({ auditId, kind })),
          ).toEqual([{ auditId: 6, kind: 'deleted' }]);
        },
        { auditKey: 'k-1' },
      ));

    it('without a key, a purge checkpoint is unsigned and verify says so', () =>
      withBackend(async (backend) => {
        await backend.audit.append(row('old_1', { at: Date.now() - 500 * day }));
        await backend.audit.append(row('call_1'));
        await backend.audit.purge({ olderThanDays: 400, by: 'retention-job' });
        expect(await backend.audit.verifyChain()).toMatchObject({ ok: true, unsignedCheckpoints: 1 });
      }));
  });
}
