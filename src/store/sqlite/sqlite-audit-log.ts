import type Database from 'better-sqlite3';
import type {
  CallHistoryFilter,
  CallHistorySource,
  ExecutedDecision,
  HistoryRelease,
  PastCall,
} from '../../core/call-history.js';
import type { AuditChainReport } from '../../gate/audit-chain.js';
import { auditCheckpoint } from '../../gate/audit-checkpoint.js';
import type { AuditEntry, AuditLog } from '../../gate/audit-log.js';
import {
  type AuditArchive,
  type AuditPurgeResult,
  auditPurgeCutoff,
  auditPurgeEntry,
  auditRetentionFloorDays,
  checkAuditRetention,
  defaultAuditRetentionDays,
} from '../../gate/audit-retention.js';
import type { AnchoredChain } from '../../gate/verify-audit-chain.js';
import { isStoreBusy, retryWhileBusy } from '../../util/retry-while-busy.js';
import {
  type AuditChainCut,
  type AuditChainOriginRow,
  type AuditRecord,
  type AuditRow,
  type AuditRowValues,
  auditChainOriginSql,
  auditPurgePrefix,
  checkpointOf,
  toAuditRecord,
  toAuditRowValues,
  verifyAuditRows,
} from '../audit-rows.js';
import {
  type HistoryReservationStatements,
  historyReservationLeaseMs,
  historyReservationSql,
  reserveHistoryInStore,
} from '../history-reservations.js';
import { type AuditRowInsert, createAuditRowInsert } from './audit-row-insert.js';
import { type PendingWrites, pendingWrites } from './pending-writes.js';
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';
import { createSqliteAuditChain } from './sqlite-audit-chain.js';

const named = (name: string) => `@${name}`;
const reservationSql = {
  take: historyReservationSql.take(named),
  renew: historyReservationSql.renew(named),
  drop: historyReservationSql.drop(named),
};

const executed: readonly ExecutedDecision[] = ['allowed', 'auto_approved', 'approved'];
const purgedRows = auditPurgePrefix('@before');

export type { AuditRecord } from '../audit-rows.js';

/**
 * The append-only audit log in SQLite: who (principal, session, run), what
 * (tool, tier, arguments with sensitive fields redacted, their sha256),
 * whether the gate or a person let it through, how it ended, and for a
 * replay which call executed first. Triggers refuse UPDATE and DELETE, so
 * the application cannot rewrite history through SQL either. It is also
 * the `CallHistorySource` rules read `context.history` from (indexed by
 * principal, tool and time, and by run).
 *
 * The row of a call that changes nothing (a `read` let through) waits for
 * the connection's next transaction (`PendingWrites`): it commits with the
 * step that puts the call's answer into a durable session, and otherwise
 * within 20 ms or when the log is read (`findCalls`, `listAudit`, `flush`). Any other row commits before `append` returns,
 * together with the rows waiting before it.
 *
 * Rows older than the configured retention (`minimumRetentionDays`,
 * default 400, never below 30) can be deleted through `purge` alone, which
 * records itself in the log (migration 16 explains the triggers).
 *
 * @example
 * const audit = new SqliteAuditLog({ database: store.database });
 * await runAgent({ model, tools, messages, audit });
 * audit.listAudit({ sessionId }).map((entry) => entry.decision);
 */
export class SqliteAuditLog implements AuditLog, CallHistorySource {
  readonly #statement: PreparedStatements;
  readonly #insert: AuditRowInsert;
  readonly #pending: PendingWrites;
  readonly #busyWaitMs: number;
  readonly #now: () => number;
  readonly #reservations: HistoryReservationStatements;
  readonly #minimumRetentionDays: number;
  readonly #auditKey: string | undefined;
  /** Rows of calls that changed nothing, waiting for the connection's next transaction, oldest first. */
  readonly #waiting: AuditRowValues[] = [];
  /** Whether a queued write will insert `#waiting`. */
  #queued = false;
  readonly #historyLeaseMs: number;
  /** Waiting rows that could not be written: thrown by the next append or flush. */
  #failure: unknown;

  constructor({
    database,
    busyWaitMs = 0,
    now = Date.now,
    minimumRetentionDays = defaultAuditRetentionDays,
    auditKey = process.env.ARBITER_AUDIT_KEY,
    historyLeaseMs = historyReservationLeaseMs,
  }: {
    database: Database.Database;
    /**
     * How long a history reservation holds without renewal: after a kill,
     * the next call of the same principal whose rule reads history waits
     * this long at most. Default 30 s.
     */
    historyLeaseMs?: number;
    /** The key purge checkpoints are signed with (HMAC-SHA256). Default `ARBITER_AUDIT_KEY`; without one they carry no signature. */
    auditKey?: string | undefined;
    /** The clock `purge` measures ages from. Default `Date.now`. */
    now?: () => number;
    /** `purge` never deletes rows younger than this many days. Default 400; at least 30 (`auditRetentionFloorDays`). */
    minimumRetentionDays?: number;
    /**
     * While another connection holds the database locked, retry an append
     * asynchronously for up to this long (`retryWhileBusy`) instead of
     * failing at once. Default 0: one try, within the connection's busy timeout.
     */
    busyWaitMs?: number;
  }) {
    this.#statement = preparedStatements(database);
    const insert = createAuditRowInsert(database);
    const chain = createSqliteAuditChain(database);
    this.#insert = (rows) => insert(chain(rows));
    this.#pending = pendingWrites(database);
    this.#busyWaitMs = busyWaitMs;
    this.#now = now;
    this.#historyLeaseMs = historyLeaseMs;
    const statement = this.#statement;
    this.#reservations = {
      take: ({ key, holder, expiresAt, now: at }) => {
        try {
          return statement(reservationSql.take).run({ key, holder, expiresAt, now: at }).changes === 1;
        } catch (error) {
          // Another process holds the file's write lock: not taken this time, tried again.
          if (isStoreBusy(error)) return false;
          throw error;
        }
      },
      renew: ({ key, holder, expiresAt }) => statement(reservationSql.renew).run({ key, holder, expiresAt }),
      drop: ({ key, holder }) => statement(reservationSql.drop).run({ key, holder }),
    };
    this.#minimumRetentionDays = checkAuditRetention(minimumRetentionDays);
    this.#auditKey = auditKey;
  }

  /**
   * Recomputes the hash chain of every tenant over the whole log and names
   * the first row where each break shows (a row changed, inserted, or
   * deleted outside a purge): see `verifyAuditChain`.
   *
   * @example
   * const { ok, findings } = audit.verifyChain();
   */
  verifyChain({
    key = this.#auditKey,
    anchored,
  }: {
    key?: string | undefined;
    /** The chains of an anchor whose signature holds (`checkAuditAnchor`): rows deleted after it are named. */
    anchored?: readonly AnchoredChain[];
  } = {}): AuditChainReport {
    this.#pending.flush();
    return verifyAuditRows({
      rows: this.#statement('SELECT * FROM audit_log ORDER BY audit_id').all() as AuditRow[],
      origin: this.#origin(),
      key,
      anchored,
    });
  }

  /** When the chain began; undefined when the record is gone (the table dropped or its row deleted). */
  #origin(): AuditChainOriginRow | undefined {
    try {
      return this.#statement(auditChainOriginSql).get() as AuditChainOriginRow | undefined;
    } catch (error) {
      if (error instanceof Error && /no such table/.test(error.message)) return undefined;
      throw error;
    }
  }

  /**
   * Deletes the rows older than `olderThanDays` (never fewer days than the
   * configured retention: `AuditRetentionError`; never a row younger than
   * 30 days by the database's clock), after handing them to `archive`, and
   * appends one row that says who purged, when, below which time and how
   * many rows: all in one transaction.
   *
   * @example
   * const { deleted } = audit.purge({ olderThanDays: 400, by: 'retention-job' });
   */
  purge({
    olderThanDays,
    by,
    archive,
  }: {
    olderThanDays: number;
    /** Who purged, recorded as the purge row's approver. */
    by: string;
    archive?: AuditArchive;
  }): AuditPurgeResult {
    this.#throwFailure();
    const now = this.#now();
    const cutoff = auditPurgeCutoff({ now, olderThanDays, minimumRetentionDays: this.#minimumRetentionDays });
    return this.#pending.transaction(() => {
      const { before } = this.#statement(
        `SELECT CAST(min(?, (julianday('now') - 2440587.5 - ${auditRetentionFloorDays}) * 86400000) AS INTEGER) AS before`,
      ).get(cutoff) as { before: number };
      if (archive !== undefined) {
        const rows = this.#statement(`SELECT * FROM audit_log WHERE ${purgedRows} ORDER BY audit_id`).all({
          before,
        }) as AuditRow[];
        archive.write(rows.map(toAuditRecord));
      }
      this.#statement('INSERT INTO audit_retention (singleton, purge_before) VALUES (1, ?)').run(before);
      const cut = this.#statement(
        `SELECT coalesce(tenant_id, '') AS tenant, chain_writer AS writer, chain_seq AS seq, chain_hash AS hash,
           max(audit_id) FROM audit_log WHERE ${purgedRows} AND chain_hash IS NOT NULL GROUP BY 1, 2`,
      ).all({ before }) as AuditChainCut[];
      const checkpoint = auditCheckpoint({ ...checkpointOf(cut), key: this.#auditKey });
      const deleted = this.#statement(`DELETE FROM audit_log WHERE ${purgedRows}`).run({ before }).changes;
      this.#statement('DELETE FROM audit_retention').run();
      this.#insert([
        toAuditRowValues(
          auditPurgeEntry({ at: now, by, before, olderThanDays, deleted, archive: archive?.location, checkpoint }),
        ),
      ]);
      return { before, deleted };
    });
  }

  append(entry: AuditEntry): void | Promise<void> {
    this.#throwFailure();
    const row = toAuditRowValues(entry);
    if (entry.sideEffect !== 'read' || !executed.includes(entry.decision as ExecutedDecision)) {
      return this.#commit(() => this.#insert([row]));
    }
    this.#waiting.push(row);
    if (this.#queued) return;
    this.#queued = true;
    // One queued write inserts every row waiting when it runs, and forgets them only once they committed.
    let written = 0;
    this.#pending.add({
      write: () => {
        written = this.#waiting.length;
        this.#insert(this.#waiting);
      },
      settled: (committed) => {
        if (!committed) return;
        this.#waiting.splice(0, written);
        this.#queued = false;
      },
      fail: (error) => {
        this.#waiting.length = 0;
        this.#queued = false;
        this.#failure ??= error;
      },
      withinMs: waitingRowsWithinMs,
    });
  }

  /** Commits every row still waiting for a transaction. */
  flush(): void | Promise<void> {
    this.#throwFailure();
    if (this.#pending.size === 0) return;
    return this.#commit(() => undefined);
  }

  #commit(write: () => void): void | Promise<void> {
    const inTransaction = () => this.#pending.transaction(write);
    if (this.#busyWaitMs === 0) return inTransaction();
    return retryWhileBusy({ operation: 'audit', waitMs: this.#busyWaitMs, write: inTransaction });
  }

  #throwFailure(): void {
    if (this.#failure === undefined) return;
    const failure = this.#failure;
    this.#failure = undefined;
    throw failure;
  }

  /**
   * Calls of one tool that executed and succeeded (outcome `ok`), oldest
   * first, narrowed by run, session, principal, time and decision.
   */
  /**
   * Reserves `principalKey`'s history for one call across every process on
   * this database file (`history_reservations`, see `reserveHistoryInStore`).
   */
  reserveHistory(principalKey: string): Promise<HistoryRelease> {
    return reserveHistoryInStore({
      statements: this.#reservations,
      key: principalKey,
      now: this.#now,
      leaseMs: this.#historyLeaseMs,
    });
  }

  findCalls({ tool, runId, sessionId, tenantId, userId, since, decisions = executed }: CallHistoryFilter): PastCall[] {
    this.#pending.flush();
    const clauses = ['tool = ?', "outcome = 'ok'", `decision IN (${decisions.map(() => '?').join(', ')})`];
    const values: (string | number | null)[] = [tool, ...decisions];
    for (const [clause, value] of [
      ['run_id = ?', runId],
      ['session_id = ?', sessionId],
      ['tenant_id IS ?', tenantId],
      ['user_id IS ?', userId],
      ['at >= ?', since],
    ] as const) {
      if (value === undefined) continue;
      clauses.push(clause);
      values.push(value);
    }
    const rows = this.#statement(`SELECT * FROM audit_log WHERE ${clauses.join(' AND ')} ORDER BY audit_id`).all(
      ...values,
    ) as AuditRow[];
    return rows.map((row) => ({
      at: row.at,
      runId: row.run_id,
      sessionId: row.session_id ?? undefined,
      toolCallId: row.tool_call_id,
      tool: row.tool,
      arguments: JSON.parse(row.arguments) as Record<string, unknown>,
      decision: row.decision as ExecutedDecision,
      rule: row.rule ?? undefined,
    }));
  }

  /** Entries in the order they were appended, optionally of one session, run or tool call. */
  listAudit({
    sessionId,
    runId,
    toolCallId,
    limit,
  }: {
    sessionId?: string;
    runId?: string;
    toolCallId?: string;
    limit?: number;
  } = {}): readonly AuditRecord[] {
    this.#pending.flush();
    const clauses: string[] = [];
    const values: (string | number)[] = [];
    for (const [column, value] of [
      ['session_id', sessionId],
      ['run_id', runId],
      ['tool_call_id', toolCallId],
    ] as const) {
      if (value === undefined) continue;
      clauses.push(`${column} = ?`);
      values.push(value);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    const bounded = limit === undefined ? '' : 'LIMIT ?';
    if (limit !== undefined) values.push(limit);
    const rows = this.#statement(`SELECT * FROM audit_log ${where} ORDER BY audit_id ${bounded}`).all(
      ...values,
    ) as AuditRow[];
    return rows.map(toAuditRecord);
  }
}

/**
 * How long the rows of calls that changed nothing wait for another
 * transaction before they commit in one of their own. Calls that arrive one
 * by one outside a run (the MCP server, `runToolCall` on its own) would
 * otherwise commit a transaction each: about 15-30 µs a row alone, against
 * about 6 µs a row in a batch. A crash in that window loses at most these
 * rows, of calls that changed nothing.
 */
const waitingRowsWithinMs = 20;
