import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Awaitable } from '../../core/awaitable.js';
import { auditAnchor, checkAuditAnchor } from '../../gate/audit-anchor.js';
import { type AuditChainReport, auditChainKey, auditRowHash } from '../../gate/audit-chain.js';
import type { AuditEntry } from '../../gate/audit-log.js';
import type { AuditPurgeResult } from '../../gate/audit-retention.js';
import type { CheckedAuditAnchor } from '../../gate/verify-audit-chain.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { auditWrittenColumns, toAuditRowValues } from '../audit-rows.js';

const day = 86_400_000;
/** Keys anchors are signed with: 32 characters or more, as `checkAuditKey` demands. */
const anchorKey = 'anchor-key-0123456789abcdef012345';
const signingKey = 'k-1-0123456789abcdef0123456789abc';
const otherSigningKey = 'k-2-0123456789abcdef0123456789abc';

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

/**
 * Rows as the release before the chain's second format wrote them: one chain
 * per tenant, each row's hash over its positional values (`auditRowHash`),
 * inserted by SQL.
 */
function firstFormatInserts(entries: readonly AuditEntry[]): string {
  const heads = new Map<string, string | null>();
  const literal = (value: string | number | null) =>
    value === null ? 'NULL' : typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;
  return entries
    .map((entry) => {
      const values = toAuditRowValues(entry);
      const tenant = auditChainKey(entry.tenantId);
      const previousHash = heads.get(tenant) ?? null;
      const chainHash = auditRowHash({ previousHash, values });
      heads.set(tenant, chainHash);
      return `INSERT INTO audit_log (${auditWrittenColumns}, previous_hash, chain_hash)
        VALUES (${[...values, previousHash, chainHash].map(literal).join(', ')});`;
    })
    .join('\n');
}

/** An audit log with a hash chain, and raw SQL on its database, as an attacker with the database's role has it. */
export interface AuditChainBackend {
  readonly audit: {
    append(entry: AuditEntry): Awaitable<void>;
    verifyChain(options?: {
      key?: string | undefined;
      anchor?: CheckedAuditAnchor | undefined;
    }): Awaitable<AuditChainReport>;
    purge(options: { olderThanDays: number; by: string }): Awaitable<AuditPurgeResult>;
  };
  /** Runs one statement as the application's role. */
  sql(text: string): Awaitable<unknown>;
  /** Drops or disables the triggers that keep the log append-only (what an attacker owning the table can do). */
  dropAppendOnlyTriggers(): Awaitable<void>;
  /** Another audit log on the same database, as another node (PostgreSQL) or connection (SQLite) opens it. */
  openAnotherWriter(): Awaitable<{ audit: AuditChainBackend['audit']; close(): Awaitable<void> }>;
  /** Drops or disables the triggers that keep `audit_chain_origin` and `audit_store` unchanged. */
  dropOriginTriggers(): Awaitable<void>;
  /** What an INSERT naming `audit_id` needs between its column list and VALUES (PostgreSQL: `OVERRIDING SYSTEM VALUE`). */
  readonly explicitId: string;
  close(): Awaitable<void>;
}

/** How a backend is opened for the contract. */
export interface AuditChainBackendOptions {
  auditKey?: string | undefined;
  /**
   * Opened on the schema of a release before the hash chain (every migration
   * but the gate's from 20 on), so rows can be written as that release wrote
   * them; `migrateToLatest` then upgrades it in place and opens the log anew.
   */
  beforeChain?: boolean;
  /**
   * Opened on the schema of the release before store ids (every migration
   * but 21: chains begin from nothing), upgraded by `migrateToLatest`.
   */
  beforeStoreId?: boolean;
}

/** A backend opened `beforeChain`, upgraded in place by `migrateToLatest`. */
export interface UpgradableAuditChainBackend extends AuditChainBackend {
  migrateToLatest(): Awaitable<void>;
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
  create: (options: AuditChainBackendOptions) => Awaitable<UpgradableAuditChainBackend>,
): void {
  describe(`${name} (audit hash chain)`, () => {
    const withBackend = async (
      work: (backend: UpgradableAuditChainBackend) => Promise<void>,
      options: AuditChainBackendOptions = {},
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

    describe('a row without a hash is a finding unless it is older than the chain', () => {
      const forge = (
        backend: AuditChainBackend,
        {
          tenant,
          at = Date.now(),
          auditId,
          toolCallId = 'call_forged',
        }: { tenant: string | null; at?: number; auditId?: number; toolCallId?: string },
      ) =>
        backend.sql(
          `INSERT INTO audit_log (${auditId === undefined ? '' : 'audit_id, '}at, run_id, step, tool_call_id, tool,
             side_effect, arguments_hash, arguments, decision, outcome, duration_ms, tenant_id) ${auditId === undefined ? '' : backend.explicitId}
           VALUES (${auditId === undefined ? '' : `${auditId}, `}${at}, 'run-a', 2, '${toolCallId}', 'send_payment',
             'irreversible', 'hash', '{}', 'approved', 'ok', 1, ${tenant === null ? 'NULL' : `'${tenant}'`})`,
        );
      const findingsOf = async (backend: AuditChainBackend) =>
        (await backend.audit.verifyChain()).findings.map(({ auditId, kind }) => ({ auditId, kind }));

      it('names an unchained row of a tenant whose chain has not started', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          await forge(backend, { tenant: 'new-bank' });
          const report = await backend.audit.verifyChain();
          expect(report).toMatchObject({ ok: false, unchained: 0 });
          expect(report.findings.map(({ auditId, kind, tenant }) => ({ auditId, kind, tenant }))).toEqual([
            { auditId: 6, kind: 'inserted', tenant: 'new-bank' },
          ]);
          expect(report.findings[0]?.message).toBe(
            'row 6 (tenant new-bank) has no chain hash but was written after the chain began: inserted outside the audit log',
          );
        }));

      it('names an unchained row without a tenant when no call without a principal was audited yet', () =>
        withBackend(async (backend) => {
          await backend.audit.append(row('call_1'));
          await forge(backend, { tenant: null });
          expect(await findingsOf(backend)).toEqual([{ auditId: 2, kind: 'inserted' }]);
        }));

      it('names every row of a tenant whose chain was stripped of its hashes and rewritten', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          await backend.dropAppendOnlyTriggers();
          await backend.sql(
            `UPDATE audit_log SET previous_hash = NULL, chain_hash = NULL, approver = 'mallory' WHERE tenant_id = 'bank'`,
          );
          expect(await findingsOf(backend)).toEqual([
            { auditId: 1, kind: 'inserted' },
            { auditId: 3, kind: 'inserted' },
            { auditId: 5, kind: 'inserted' },
          ]);
        }));

      it('names the only chain of a log stripped of its hashes', () =>
        withBackend(async (backend) => {
          await backend.audit.append(row('call_1'));
          await backend.audit.append(row('call_2'));
          await backend.dropAppendOnlyTriggers();
          await backend.sql('UPDATE audit_log SET previous_hash = NULL, chain_hash = NULL');
          expect(await findingsOf(backend)).toEqual([
            { auditId: 1, kind: 'inserted' },
            { auditId: 2, kind: 'inserted' },
          ]);
        }));

      it('names an unchained row whose id and time are placed before the chain began', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          await forge(backend, { tenant: 'bank', auditId: 0, at: Date.now() - 500 * day });
          const report = await backend.audit.verifyChain();
          expect(report.ok).toBe(false);
          expect(report.findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
            { auditId: 0, kind: 'inserted' },
          ]);
        }));

      it('names a stripped row even after the record of when the chain began is moved', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          await backend.dropAppendOnlyTriggers();
          await backend.dropOriginTriggers();
          await backend.sql('UPDATE audit_chain_origin SET last_row_id = 1000, rows_then = 1000');
          await backend.sql(`UPDATE audit_log SET previous_hash = NULL, chain_hash = NULL WHERE audit_id = 5`);
          // Every chain began from the origin as it was: each one's first row names the move.
          const sealedChains = [
            { auditId: 1, kind: 'origin' },
            { auditId: 2, kind: 'origin' },
            { auditId: 4, kind: 'origin' },
          ];
          expect(await findingsOf(backend)).toEqual([...sealedChains, { auditId: 5, kind: 'inserted' }]);
          await backend.sql('DELETE FROM audit_chain_origin');
          expect(await findingsOf(backend)).toEqual([
            { auditId: 0, kind: 'origin' },
            ...sealedChains,
            { auditId: 5, kind: 'inserted' },
          ]);
        }));

      it('refuses to change or delete the record of when the chain began', () =>
        withBackend(async (backend) => {
          await expect(async () => backend.sql('UPDATE audit_chain_origin SET last_row_id = 1000')).rejects.toThrow(
            /audit_chain_origin cannot be changed/,
          );
          await expect(async () => backend.sql('DELETE FROM audit_chain_origin')).rejects.toThrow(
            /audit_chain_origin cannot be changed/,
          );
        }));

      it('refuses to change or delete the store’s id', () =>
        withBackend(async (backend) => {
          await expect(async () => backend.sql("UPDATE audit_store SET store_id = 'another'")).rejects.toThrow(
            /audit_store cannot be changed/,
          );
          await expect(async () => backend.sql('DELETE FROM audit_store')).rejects.toThrow(
            /audit_store cannot be changed/,
          );
        }));

      it('leaves rows from before the chain unchecked, and names one slipped in among them', () =>
        withBackend(
          async (backend) => {
            for (const [index, tenant] of ['bank', null, 'other-bank'].entries()) {
              await forge(backend, { tenant, at: Date.now() - 1000 + index, toolCallId: `legacy_${index}` });
            }
            await backend.migrateToLatest();
            await backend.audit.append(row('call_1'));
            await backend.audit.append(row('call_2', { tenantId: 'new-bank' }));
            expect(await backend.audit.verifyChain()).toMatchObject({ ok: true, rows: 5, unchained: 3 });
            await forge(backend, { tenant: 'bank', auditId: 0, at: Date.now() - 2000 });
            const report = await backend.audit.verifyChain();
            expect(report.findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
              { auditId: 3, kind: 'inserted' },
            ]);
            expect(report.findings[0]?.message).toBe(
              'row 3 (tenant other-bank) ends 4 rows from before the chain began where 3 were recorded when it began: rows were inserted among them',
            );
          },
          { beforeChain: true },
        ));
    });

    describe('the origin, sealed into every chain begun since and into the anchor', () => {
      const tomorrow = Date.now() + day;
      /** The attack of issue 45: the origin widened by one row and a day, and a row without hashes slipped under it. */
      const widenAndForge = async (backend: AuditChainBackend) => {
        await backend.dropAppendOnlyTriggers();
        await backend.dropOriginTriggers();
        await backend.sql(`UPDATE audit_chain_origin SET rows_then = rows_then + 1, started_at = ${tomorrow}`);
        await backend.sql(
          `INSERT INTO audit_log (audit_id, at, run_id, step, tool_call_id, tool, side_effect, arguments_hash,
             arguments, decision, approver, outcome, duration_ms, tenant_id, user_id) ${backend.explicitId}
           VALUES (0, ${Date.now()}, 'run-a', 9, 'call_forged', 'send_payment', 'irreversible', 'hash', '{}',
             'approved', 'S9001', 'ok', 1, 'bank', 'U1')`,
        );
      };
      const kinds = (report: AuditChainReport) => report.findings.map(({ auditId, kind }) => ({ auditId, kind }));
      const anchorOf = async (backend: AuditChainBackend) => {
        const checked = checkAuditAnchor({
          anchor: JSON.parse(
            JSON.stringify(auditAnchor({ report: await backend.audit.verifyChain(), at: Date.now(), key: anchorKey })),
          ),
          key: anchorKey,
        });
        if (!checked.ok) throw new Error(checked.reason);
        return checked.anchor;
      };

      it('names a widened origin and the row slipped under it, with and without the anchor', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          const anchor = await anchorOf(backend);
          expect(anchor.store).toMatch(/^[0-9a-f]{32}$/);
          expect(anchor.origin).toMatchObject({ lastRowId: 0, rowsThen: 0 });
          await widenAndForge(backend);
          const alone = await backend.audit.verifyChain();
          expect(alone.ok).toBe(false);
          expect(kinds(alone)).toEqual([
            { auditId: 0, kind: 'inserted' },
            { auditId: 1, kind: 'origin' },
            { auditId: 2, kind: 'origin' },
            { auditId: 4, kind: 'origin' },
          ]);
          expect(alone.findings.map((finding) => finding.message)).toContain(
            'row 0 (tenant bank) has no chain hash but was written after the chain began: inserted outside the audit log',
          );
          expect(alone.findings[1]?.message).toMatch(
            /^row 1 \(tenant bank\) begins chain \S+ from another origin than this store records now: its id \(audit_store\) or when its chain began \(audit_chain_origin\) was changed$/,
          );
          const anchored = await backend.audit.verifyChain({ anchor });
          expect(kinds(anchored)).toEqual([
            { auditId: 0, kind: 'origin' },
            { auditId: 0, kind: 'inserted' },
            { auditId: 1, kind: 'origin' },
            { auditId: 2, kind: 'origin' },
            { auditId: 4, kind: 'origin' },
          ]);
          expect(anchored.findings.map((finding) => finding.message)).toEqual(
            expect.arrayContaining([
              expect.stringMatching(
                /^audit_chain_origin records 1 rows up to row 0 before \S+ where the anchor of \S+ holds 0 rows up to row 0 before \S+: the record of when the chain began was changed$/,
              ),
              'row 0 (tenant bank) has no chain hash but was written after the chain began: inserted outside the audit log',
            ]),
          );
        }));

      it('names a narrowed origin, and a store id changed in the database', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          const anchor = await anchorOf(backend);
          await backend.dropOriginTriggers();
          await backend.sql('UPDATE audit_chain_origin SET started_at = started_at - 1');
          expect(kinds(await backend.audit.verifyChain())).toEqual([
            { auditId: 1, kind: 'origin' },
            { auditId: 2, kind: 'origin' },
            { auditId: 4, kind: 'origin' },
          ]);
          expect(kinds(await backend.audit.verifyChain({ anchor }))).toEqual([
            { auditId: 0, kind: 'origin' },
            { auditId: 1, kind: 'origin' },
            { auditId: 2, kind: 'origin' },
            { auditId: 4, kind: 'origin' },
          ]);
          await backend.sql('UPDATE audit_chain_origin SET started_at = started_at + 1');
          expect(await backend.audit.verifyChain({ anchor })).toMatchObject({ ok: true });
          // Moved to another store's id, the log would take that store's anchors: its chains say otherwise.
          await backend.sql("UPDATE audit_store SET store_id = 'another-store'");
          expect(kinds(await backend.audit.verifyChain())).toEqual([
            { auditId: 1, kind: 'origin' },
            { auditId: 2, kind: 'origin' },
            { auditId: 4, kind: 'origin' },
          ]);
          await backend.sql('DELETE FROM audit_store');
          const unnamed = await backend.audit.verifyChain();
          expect(kinds(unnamed)[0]).toEqual({ auditId: 0, kind: 'origin' });
          expect(unnamed.findings[0]?.message).toBe(
            "the store's id (audit_store) is missing: the origin the chains were sealed with cannot be checked, no row without hashes can be trusted",
          );
        }));

      it('names an anchor of another store as such, not as rows deleted', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          const other = await create({});
          let anchor: Awaited<ReturnType<typeof anchorOf>>;
          try {
            await other.audit.append(row('elsewhere_1'));
            anchor = await anchorOf(other);
          } finally {
            await other.close();
          }
          const report = await backend.audit.verifyChain({ anchor });
          expect(kinds(report)).toEqual([{ auditId: 0, kind: 'anchor' }]);
          expect(report.findings[0]?.message).toMatch(
            new RegExp(
              `^this anchor \\(of \\S+\\) belongs to store ${anchor.store}, not to this store \\(${report.origin?.store}\\): its chain heads were not checked$`,
            ),
          );
          expect(report.origin?.store).not.toBe(anchor.store);
        }));

      it('refuses an anchor whose store or origin was edited, and still reads one of the first format', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          const written = auditAnchor({ report: await backend.audit.verifyChain(), at: Date.now(), key: anchorKey });
          const notSigned = { ok: false, reason: 'audit anchor is not signed with the configured ARBITER_AUDIT_KEY' };
          expect(checkAuditAnchor({ anchor: { ...written, store: 'f'.repeat(32) }, key: anchorKey })).toEqual(
            notSigned,
          );
          expect(
            checkAuditAnchor({ anchor: { ...written, origin: { ...written.origin, rowsThen: 1 } }, key: anchorKey }),
          ).toEqual(notSigned);
          const { store: _store, origin: _origin, ...unnamed } = written;
          expect(
            checkAuditAnchor({ anchor: { ...unnamed, format: 'arbiter-audit-anchor-v1' }, key: anchorKey }),
          ).toEqual(notSigned);
          // An anchor written before anchors named their store: its heads are still checked.
          const v1 = {
            format: 'arbiter-audit-anchor-v1',
            at: written.at,
            rows: written.rows,
            chains: written.chains,
            signature: createHmac('sha256', anchorKey)
              .update(
                canonicalJson([
                  'arbiter-audit-anchor-v1',
                  { at: written.at, rows: written.rows, chains: written.chains },
                ]),
              )
              .digest('hex'),
          };
          const checked = checkAuditAnchor({ anchor: v1, key: anchorKey });
          if (!checked.ok) throw new Error(checked.reason);
          expect(checked.anchor).toMatchObject({ store: undefined, origin: undefined });
          expect(await backend.audit.verifyChain({ anchor: checked.anchor })).toMatchObject({ ok: true });
          await backend.dropAppendOnlyTriggers();
          await backend.sql(`DELETE FROM audit_log WHERE tool_call_id = 'call_5'`);
          expect(kinds(await backend.audit.verifyChain({ anchor: checked.anchor }))).toEqual([
            { auditId: 3, kind: 'truncated' },
          ]);
        }));

      it('keeps verifying chains begun before the store had an id, and seals the chains begun after the upgrade', () =>
        withBackend(
          async (backend) => {
            await backend.audit.append(row('before_1'));
            await backend.audit.append(row('before_2', { tenantId: 'other-bank' }));
            await backend.migrateToLatest();
            await backend.audit.append(row('after_1'));
            await backend.audit.append(row('after_2', { tenantId: 'new-bank' }));
            const upgraded = await backend.audit.verifyChain();
            expect(upgraded).toMatchObject({ ok: true, rows: 4, findings: [] });
            await backend.dropOriginTriggers();
            await backend.sql(`UPDATE audit_chain_origin SET rows_then = rows_then + 1, started_at = ${tomorrow}`);
            // The chain of the tenant new since the upgrade was sealed with the origin; the older ones were not.
            expect(kinds(await backend.audit.verifyChain())).toEqual(
              expect.arrayContaining([{ auditId: 4, kind: 'origin' }]),
            );
          },
          { beforeStoreId: true },
        ));

      it('records the origin in a purge checkpoint, so an origin moved after the purge cut the chains still shows', () =>
        withBackend(
          async (backend) => {
            await backend.audit.append(row('old_1', { at: Date.now() - 500 * day }));
            await backend.audit.append(row('call_1'));
            await backend.audit.purge({ olderThanDays: 400, by: 'retention-job' });
            expect(await backend.audit.verifyChain()).toMatchObject({ ok: true });
            await backend.dropOriginTriggers();
            await backend.sql(`UPDATE audit_chain_origin SET rows_then = rows_then + 1, started_at = ${tomorrow}`);
            expect(kinds(await backend.audit.verifyChain())).toEqual(
              expect.arrayContaining([{ auditId: 3, kind: 'origin' }]),
            );
          },
          { auditKey: signingKey },
        ));
    });

    describe('second format: a named record, a chain per writer, anchors', () => {
      it('verifies rows of the first format beside those of the second, and names a change to either', () =>
        withBackend(async (backend) => {
          for (const statement of firstFormatInserts([
            row('v1_1'),
            row('v1_2', { tenantId: 'other-bank' }),
            row('v1_3', { arguments: { amount_cents: 9 } }),
          ]).split(';\n')) {
            await backend.sql(statement.replace(/;$/, ''));
          }
          await appendFive(backend);
          const report = await backend.audit.verifyChain();
          expect(report).toMatchObject({ ok: true, rows: 8, unchained: 0 });
          expect(report.chains.map(({ tenant, writer, seq }) => ({ tenant, first: writer === null, seq }))).toEqual(
            expect.arrayContaining([
              { tenant: 'bank', first: true, seq: null },
              { tenant: 'bank', first: false, seq: 3 },
              { tenant: 'other-bank', first: true, seq: null },
            ]),
          );
          await backend.dropAppendOnlyTriggers();
          await backend.sql(`UPDATE audit_log SET approver = 'mallory' WHERE tool_call_id IN ('v1_2', 'call_3')`);
          await backend.sql(`DELETE FROM audit_log WHERE tool_call_id = 'v1_1'`);
          const findings = (await backend.audit.verifyChain()).findings;
          expect(findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
            { auditId: 2, kind: 'changed' },
            { auditId: 3, kind: 'deleted' },
            { auditId: 6, kind: 'changed' },
          ]);
        }));

      it('binds each value to its field’s name, and each row to its writer and place', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          await backend.dropAppendOnlyTriggers();
          await backend.sql(`UPDATE audit_log SET rule = approver, approver = rule WHERE tool_call_id = 'call_1'`);
          await backend.sql(`UPDATE audit_log SET chain_seq = 7 WHERE tool_call_id = 'call_2'`);
          const findings = (await backend.audit.verifyChain()).findings;
          expect(findings.map(({ auditId, kind }) => ({ auditId, kind }))).toEqual([
            { auditId: 1, kind: 'changed' },
            { auditId: 2, kind: 'inserted' },
          ]);
        }));

      it('lets two writers append to one tenant at once, each its own chain, all verified', () =>
        withBackend(async (backend) => {
          const other = await backend.openAnotherWriter();
          try {
            await Promise.all(
              Array.from({ length: 40 }, (_, index) =>
                (index % 2 === 0 ? backend.audit : other.audit).append(row(`call_${index}`)),
              ),
            );
            const report = await backend.audit.verifyChain();
            expect(report).toMatchObject({ ok: true, rows: 40 });
            expect(report.chains.reduce((sum, chain) => sum + (chain.seq ?? 0), 0)).toBe(40);
            expect([...report.heads.keys()]).toEqual(['bank']);
          } finally {
            await other.close();
          }
        }));

      it('names rows deleted from the end of a chain after an anchor, which the chain alone cannot show', () =>
        withBackend(async (backend) => {
          await appendFive(backend);
          const anchor = auditAnchor({ report: await backend.audit.verifyChain(), at: Date.now(), key: anchorKey });
          await backend.audit.append(row('call_6'));
          const checked = checkAuditAnchor({ anchor: JSON.parse(JSON.stringify(anchor)), key: anchorKey });
          if (!checked.ok) throw new Error(checked.reason);
          expect(await backend.audit.verifyChain({ anchor: checked.anchor })).toMatchObject({ ok: true });
          await backend.dropAppendOnlyTriggers();
          await backend.sql(`DELETE FROM audit_log WHERE tool_call_id IN ('call_5', 'call_6')`);
          expect(await backend.audit.verifyChain()).toMatchObject({ ok: true, findings: [] });
          const report = await backend.audit.verifyChain({ anchor: checked.anchor });
          expect(report.findings.map(({ auditId, kind, tenant }) => ({ auditId, kind, tenant }))).toEqual([
            { auditId: 3, kind: 'truncated', tenant: 'bank' },
          ]);
          expect(report.findings[0]?.message).toMatch(
            /^chain \S+ of tenant bank ends at row 3 \(seq 2\) where the anchor of \S+ holds row 5 \(seq 3\): rows were deleted after the anchor$/,
          );
          // Rewritten from the anchored row on, every hash recomputed: the chain holds, the anchor does not.
          await backend.sql(`UPDATE audit_log SET chain_hash = 'rewritten' WHERE tool_call_id = 'call_4'`);
          expect(
            (await backend.audit.verifyChain({ anchor: checked.anchor })).findings.map(({ auditId, kind }) => ({
              auditId,
              kind,
            })),
          ).toEqual([
            { auditId: 3, kind: 'truncated' },
            { auditId: 4, kind: 'changed' },
            { auditId: 4, kind: 'truncated' },
          ]);
          await backend.sql(`DELETE FROM audit_log WHERE tool_call_id = 'call_4'`);
          await backend.sql(`DELETE FROM audit_log WHERE tenant_id = 'other-bank'`);
          expect(
            (await backend.audit.verifyChain({ anchor: checked.anchor })).findings.map(({ kind, tenant }) => ({
              kind,
              tenant,
            })),
          ).toEqual([
            { kind: 'truncated', tenant: 'other-bank' },
            { kind: 'truncated', tenant: '' },
            { kind: 'truncated', tenant: 'bank' },
          ]);
        }));

      it('refuses an anchor signed with another key or edited, and keeps one a purge went past', () =>
        withBackend(
          async (backend) => {
            await backend.audit.append(row('old_1', { at: Date.now() - 500 * day }));
            await backend.audit.append(row('old_2', { at: Date.now() - 500 * day, tenantId: 'other-bank' }));
            const anchor = auditAnchor({ report: await backend.audit.verifyChain(), at: Date.now(), key: signingKey });
            expect(checkAuditAnchor({ anchor, key: otherSigningKey })).toMatchObject({ ok: false });
            const edited = { ...anchor, chains: anchor.chains.filter((chain) => chain.tenant !== 'bank') };
            expect(checkAuditAnchor({ anchor: edited, key: signingKey })).toEqual({
              ok: false,
              reason: 'audit anchor is not signed with the configured ARBITER_AUDIT_KEY',
            });
            await appendFive(backend);
            await backend.audit.purge({ olderThanDays: 400, by: 'retention-job' });
            const checked = checkAuditAnchor({ anchor, key: signingKey });
            if (!checked.ok) throw new Error(checked.reason);
            expect(await backend.audit.verifyChain({ key: signingKey, anchor: checked.anchor })).toMatchObject({
              ok: true,
              findings: [],
            });
          },
          { auditKey: signingKey },
        ));
    });
  });
}
