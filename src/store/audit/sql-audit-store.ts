import type { CallHistoryFilter, CallHistorySource, HistoryRelease, PastCall } from '../../core/call-history.js';
import type { AuditChainReport } from '../../gate/audit-chain.js';
import { auditCheckpointOfCut } from '../../gate/audit-checkpoint.js';
import type { AuditEntry, AuditLog } from '../../gate/audit-log.js';
import {
  type AuditArchive,
  type AuditPurgeResult,
  auditPurgeCutoff,
  auditPurgeEntry,
  checkAuditRetention,
  defaultAuditRetentionDays,
} from '../../gate/audit-retention.js';
import type { CheckedAuditAnchor } from '../../gate/verify-audit-chain.js';
import { isStoreBusy } from '../../util/retry-while-busy.js';
import {
  type AuditChainCutRow,
  type AuditRecord,
  type AuditRow,
  toAuditChainCut,
  toAuditRecord,
  toAuditRowValues,
  toPastCall,
  verifyAuditRows,
} from '../audit-rows.js';
import {
  type HistoryReservationStatements,
  historyReservationLeaseMs,
  reserveHistoryInStore,
} from '../history-reservations.js';
import { chainAnswer, mapAnswer, recoverAnswer } from '../sql/answers.js';
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram, wait } from '../sql/sql-program.js';
import { readAuditOrigin, storedOriginSeal } from './audit-origin.js';
import { auditStatements, findCallsStatement, listAuditStatement } from './audit-statements.js';
import type { AuditAppendAnswer, AuditChainWrite, AuditStoreArchive, AuditWrites } from './audit-writes.js';

/** Options both dialects' audit logs take. */
export interface SqlAuditStoreOptions {
  /** The key purge checkpoints are signed with (HMAC-SHA256). Default `ARBITER_AUDIT_KEY`; without one they carry no signature. */
  auditKey?: string | undefined;
  /** The clock `purge` and history reservations measure time on. Default `Date.now`. */
  now?: () => number;
  /** `purge` never deletes rows younger than this many days. Default 400; at least 30 (`auditRetentionFloorDays`). */
  minimumRetentionDays?: number;
  /**
   * How long a history reservation holds without renewal: after a kill,
   * the next call of the same principal whose rule reads history waits
   * this long at most. Default 30 s.
   */
  historyLeaseMs?: number;
}

/**
 * The append-only audit log over the dialect port, one class for SQLite
 * and PostgreSQL: who (principal, session, run), what (tool, tier,
 * arguments with sensitive fields redacted, their sha256), whether the gate
 * or a person let it through, how it ended, and for a replay which call
 * executed first. Triggers refuse UPDATE and DELETE (and PostgreSQL's
 * TRUNCATE), so the application cannot rewrite history through SQL either.
 * It is also the `CallHistorySource` rules read `context.history` from
 * (indexed by principal, tool and time, and by run).
 *
 * Every row is linked into a hash chain of its tenant and writer (see
 * `audit-chain.ts`); how rows are linked and written is the dialect's
 * (`AuditWrites`), what is read, verified and purged is this class's.
 * Rows older than the configured retention (`minimumRetentionDays`,
 * default 400, never below 30) can be deleted through `purge` alone, which
 * records itself in the log, with a checkpoint of where each chain starts
 * again. Its methods answer as its port does: at once on SQLite, with a
 * promise on PostgreSQL.
 *
 * @example
 * const audit = new SqlAuditStore({ port: new SqlitePort(database), writes: new SqliteAuditWrites({ database }) });
 * audit.append(entry);
 * audit.listAudit({ sessionId }).map((record) => record.decision);
 */
export class SqlAuditStore<Mode extends SqlMode> implements AuditLog, CallHistorySource {
  readonly #port: SqlPort<Mode>;
  readonly #writes: AuditWrites<Mode>;
  readonly #now: () => number;
  readonly #minimumRetentionDays: number;
  readonly #auditKey: string | undefined;
  readonly #historyLeaseMs: number;
  readonly #reservations: HistoryReservationStatements;

  constructor({
    port,
    writes,
    now = Date.now,
    minimumRetentionDays = defaultAuditRetentionDays,
    auditKey = process.env.ARBITER_AUDIT_KEY,
    historyLeaseMs = historyReservationLeaseMs,
  }: SqlAuditStoreOptions & {
    port: SqlPort<Mode>;
    /** How this dialect links and writes rows. */
    writes: AuditWrites<Mode>;
  }) {
    this.#port = port;
    this.#writes = writes;
    this.#now = now;
    this.#minimumRetentionDays = checkAuditRetention(minimumRetentionDays);
    this.#auditKey = auditKey;
    this.#historyLeaseMs = historyLeaseMs;
    const { reservation } = auditStatements;
    this.#reservations = {
      take: ({ key, holder, expiresAt, now: at }) =>
        recoverAnswer(
          () => mapAnswer(port.run(run(reservation.take, [key, holder, expiresAt, at])), (changed) => changed === 1),
          (error) => {
            // Another process holds SQLite's write lock: not taken this time, tried again.
            if (isStoreBusy(error)) return false;
            throw error;
          },
        ),
      renew: ({ key, holder, expiresAt }) => port.run(run(reservation.renew, [key, holder, expiresAt])),
      drop: ({ key, holder }) => port.run(run(reservation.drop, [key, holder])),
    };
  }

  /**
   * Records an entry on its tenant's chain. On SQLite the row of a call that
   * changed nothing may wait for the connection's next transaction
   * (`auditEntryMayWait`); every other entry commits before the answer.
   */
  append(entry: AuditEntry): AuditAppendAnswer<Mode> {
    return this.#writes.append(entry);
  }

  /**
   * Recomputes the hash chain of every tenant over the whole log and names
   * the first row where each break shows (a row changed, inserted, or
   * deleted outside a purge; the store's id or origin changed since the
   * chains, a checkpoint or the anchor were sealed with it): see
   * `verifyAuditChain`.
   *
   * @example
   * const { ok, findings } = await audit.verifyChain();
   */
  verifyChain({
    key = this.#auditKey,
    anchor,
  }: {
    key?: string | undefined;
    /** An anchor whose signature holds (`checkAuditAnchor`): its store, its origin and rows deleted after it are checked. */
    anchor?: CheckedAuditAnchor | undefined;
  } = {}): Answer<Mode, AuditChainReport> {
    this.#writes.beforeRead();
    return chainAnswer(this.#port.run(rows<AuditRow>(auditStatements.everyRow)), (stored) =>
      mapAnswer(readAuditOrigin(this.#port), ({ origin, store }) =>
        verifyAuditRows({ rows: stored, origin, store, key, anchor }),
      ),
    );
  }

  /**
   * Deletes the rows older than `olderThanDays` (never fewer days than the
   * configured retention: `AuditRetentionError`; never a row younger than
   * 30 days by the database's clock), after handing them to `archive`, and
   * appends one row that says who purged, when, below which time and how
   * many rows, with a checkpoint of where each chain starts again: all in
   * one transaction.
   *
   * @example
   * const { deleted } = await audit.purge({ olderThanDays: 400, by: 'retention-job' });
   */
  purge({
    olderThanDays,
    by,
    archive,
  }: {
    olderThanDays: number;
    /** Who purged, recorded as the purge row's approver. */
    by: string;
    archive?: AuditStoreArchive<Mode>;
  }): Answer<Mode, AuditPurgeResult> {
    const now = this.#now();
    const minimumRetentionDays = this.#minimumRetentionDays;
    const key = this.#auditKey;
    // Run as a program so a refused age is thrown as this port answers: at once, or as a rejected promise.
    const cutoff = this.#port.run(
      (function* () {
        return yield* wait(auditPurgeCutoff({ now, olderThanDays, minimumRetentionDays }));
      })(),
    );
    // The origin is read before the transaction (it never changes): a store without one purges with no seal.
    const origin = chainAnswer(cutoff, (requested) =>
      mapAnswer(readAuditOrigin(this.#port), (stored) => ({ requested, seal: storedOriginSeal(stored) })),
    );
    // The purge row goes onto the chain of calls without a tenant, in the purge's transaction.
    return chainAnswer(origin, ({ requested, seal }) =>
      this.#writes.inTransaction('', (write) =>
        purgeBelow({ requested, now, olderThanDays, by, archive, key, seal, write }),
      ),
    );
  }

  /**
   * Reserves `principalKey`'s history for one call across every process
   * and node on this database (`history_reservations`, see
   * `reserveHistoryInStore`).
   */
  reserveHistory(principalKey: string): Promise<HistoryRelease> {
    return reserveHistoryInStore({
      statements: this.#reservations,
      key: principalKey,
      now: this.#now,
      leaseMs: this.#historyLeaseMs,
    });
  }

  /**
   * Calls of one tool that executed and succeeded (outcome `ok`), oldest
   * first, narrowed by run, session, principal, time and decision.
   */
  findCalls(filter: CallHistoryFilter): Answer<Mode, PastCall[]> {
    this.#writes.beforeRead();
    const { statement, values } = findCallsStatement(filter);
    return mapAnswer(this.#port.run(rows<AuditRow>(statement, values)), (found) => found.map(toPastCall));
  }

  /** Entries in the order they were appended, optionally of one session, run or tool call. */
  listAudit(
    filter: { sessionId?: string; runId?: string; toolCallId?: string; limit?: number } = {},
  ): Answer<Mode, readonly AuditRecord[]> {
    this.#writes.beforeRead();
    const { statement, values } = listAuditStatement(filter);
    return mapAnswer(this.#port.run(rows<AuditRow>(statement, values)), (found) => found.map(toAuditRecord));
  }
}

/**
 * A purge's transaction: the cutoff checked against the database's clock,
 * the rows handed to the archive, where each chain is cut, the rows
 * deleted while the triggers let them, and the purge's own row.
 */
function* purgeBelow({
  requested,
  now,
  olderThanDays,
  by,
  archive,
  key,
  seal,
  write,
}: {
  requested: number;
  now: number;
  olderThanDays: number;
  by: string;
  archive: AuditArchive<void | Promise<void>> | undefined;
  key: string | undefined;
  /** The store's origin seal, recorded in the checkpoint; undefined for a store without one. */
  seal: string | undefined;
  write: AuditChainWrite;
}): SqlProgram<AuditPurgeResult> {
  const [limit] = yield* rows<{ before: number }>(auditStatements.purgeBefore, [requested]);
  const before = limit?.before ?? requested;
  if (archive !== undefined) {
    const purged = yield* rows<AuditRow>(auditStatements.purgeable, [before]);
    yield* wait(archive.write(purged.map(toAuditRecord)));
  }
  const cut = yield* rows<AuditChainCutRow>(auditStatements.chainCut, [before]);
  const checkpoint = auditCheckpointOfCut({ cut: cut.map(toAuditChainCut), origin: seal, key });
  yield* run(auditStatements.authorisePurge, [before]);
  const deleted = yield* run(auditStatements.deletePurged, [before]);
  yield* run(auditStatements.endPurge);
  yield* write([
    toAuditRowValues(
      auditPurgeEntry({ at: now, by, before, olderThanDays, deleted, archive: archive?.location, checkpoint }),
    ),
  ]);
  return { before, deleted };
}
