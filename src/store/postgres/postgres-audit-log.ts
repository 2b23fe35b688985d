import type {
  CallHistoryFilter,
  CallHistorySource,
  ExecutedDecision,
  HistoryRelease,
  PastCall,
} from '../../core/call-history.js';
import type { AuditChainReport } from '../../gate/audit-chain.js';
import { type AuditCheckpoint, auditCheckpoint } from '../../gate/audit-checkpoint.js';
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
import {
  type AuditChainCut,
  type AuditChainOriginRow,
  type AuditRecord,
  type AuditRow,
  auditChainColumns,
  auditChainOriginSql,
  auditPurgePrefix,
  auditWrittenColumns,
  checkpointOf,
  toAuditRecord,
  toAuditRowValues,
  verifyAuditRows,
} from '../audit-rows.js';
import {
  type HistoryReservationStatements,
  historyReservationSql,
  postgresParameter,
  reserveHistoryInStore,
} from '../history-reservations.js';
import { namedStatement } from './named-statement.js';
import { insertLinkedRows, PostgresChainWriter } from './postgres-chain-writer.js';
import type { PostgresDatabase } from './postgres-database.js';

const executed: readonly ExecutedDecision[] = ['allowed', 'auto_approved', 'approved'];

const columns = `audit_id, ${auditWrittenColumns}, ${auditChainColumns}`;
const chainCut = namedStatement(
  `SELECT DISTINCT ON (coalesce(tenant_id, ''), chain_writer) coalesce(tenant_id, '') AS tenant,
     chain_writer AS writer, chain_seq AS seq, chain_hash AS hash FROM audit_log
   WHERE ${auditPurgePrefix('$1')} AND chain_hash IS NOT NULL
   ORDER BY coalesce(tenant_id, ''), chain_writer, audit_id DESC`,
);
const chainOrigin = namedStatement(auditChainOriginSql);
const everyRow = namedStatement(`SELECT ${columns} FROM audit_log ORDER BY audit_id`);
const purgeCutoff = namedStatement(
  `SELECT LEAST($1::bigint,
     (extract(epoch FROM clock_timestamp()) * 1000)::bigint - ${auditRetentionFloorDays} * 86400000::bigint) AS before`,
);
const purgeable = namedStatement(`SELECT ${columns} FROM audit_log WHERE ${auditPurgePrefix('$1')} ORDER BY audit_id`);
const authorisePurge = namedStatement("SELECT set_config('arbiter.audit_purge_before', $1::text, true)");
const purge = namedStatement(`DELETE FROM audit_log WHERE ${auditPurgePrefix('$1')}`);
const reservation = {
  take: namedStatement(historyReservationSql.take(postgresParameter)),
  renew: namedStatement(historyReservationSql.renew(postgresParameter)),
  drop: namedStatement(historyReservationSql.drop(postgresParameter)),
};

/**
 * The append-only audit log in PostgreSQL, with the same columns and
 * indexes as SQLite's (see `SqliteAuditLog`). A trigger refuses UPDATE,
 * DELETE and TRUNCATE, so the application cannot rewrite history through
 * SQL either. It is also the `CallHistorySource` rules read
 * `context.history` from.
 *
 * Rows older than the configured retention (`minimumRetentionDays`,
 * default 400, never below 30) can be deleted through `purge` alone, which
 * records itself in the log (migration 13 explains the trigger).
 *
 * @example
 * const { audit } = await openPostgresBackend({ connectionString });
 * await runAgent({ model, tools, messages, audit });
 * (await audit.listAudit({ sessionId })).map((entry) => entry.decision);
 */
export class PostgresAuditLog implements AuditLog, CallHistorySource {
  readonly #database: PostgresDatabase;
  readonly #now: () => number;
  readonly #minimumRetentionDays: number;
  readonly #reservations: HistoryReservationStatements;
  readonly #auditKey: string | undefined;
  readonly #chains: PostgresChainWriter;

  constructor({
    database,
    now = Date.now,
    minimumRetentionDays = defaultAuditRetentionDays,
    auditKey = process.env.ARBITER_AUDIT_KEY,
  }: {
    database: PostgresDatabase;
    /** The key purge checkpoints are signed with (HMAC-SHA256). Default `ARBITER_AUDIT_KEY`; without one they carry no signature. */
    auditKey?: string | undefined;
    /** The clock `purge` measures ages from. Default `Date.now`. */
    now?: () => number;
    /** `purge` never deletes rows younger than this many days. Default 400; at least 30 (`auditRetentionFloorDays`). */
    minimumRetentionDays?: number;
  }) {
    this.#database = database;
    this.#now = now;
    this.#minimumRetentionDays = checkAuditRetention(minimumRetentionDays);
    this.#auditKey = auditKey;
    this.#chains = new PostgresChainWriter({ database });
    this.#reservations = {
      take: async ({ key, holder, expiresAt, now }) =>
        (await database.query(reservation.take, [key, holder, expiresAt, now])).rowCount === 1,
      renew: ({ key, holder, expiresAt }) => database.query(reservation.renew, [key, holder, expiresAt]),
      drop: ({ key, holder }) => database.query(reservation.drop, [key, holder]),
    };
  }

  /**
   * Reserves `principalKey`'s history for one call across every node on
   * this database (`history_reservations`, see `reserveHistoryInStore`).
   */
  reserveHistory(principalKey: string): Promise<HistoryRelease> {
    return reserveHistoryInStore({ statements: this.#reservations, key: principalKey, now: this.#now });
  }

  /**
   * Deletes the rows older than `olderThanDays` (never fewer days than the
   * configured retention: `AuditRetentionError`; never a row younger than
   * 30 days by the database's clock), after handing them to `archive`, and
   * appends one row that says who purged, when, below which time and how
   * many rows: all in one transaction.
   *
   * @example
   * const { deleted } = await audit.purge({ olderThanDays: 400, by: 'retention-job' });
   */
  async purge({
    olderThanDays,
    by,
    archive,
  }: {
    olderThanDays: number;
    /** Who purged, recorded as the purge row's approver. */
    by: string;
    archive?: AuditArchive<void | Promise<void>>;
  }): Promise<AuditPurgeResult> {
    const now = this.#now();
    const cutoff = auditPurgeCutoff({ now, olderThanDays, minimumRetentionDays: this.#minimumRetentionDays });
    const row = (checkpoint: AuditCheckpoint, before: number, deleted: number) =>
      toAuditRowValues(
        auditPurgeEntry({ at: now, by, before, olderThanDays, deleted, archive: archive?.location, checkpoint }),
      );
    // The purge row goes onto this log's chain of calls without a tenant, in the purge's transaction.
    return this.#chains.withChain('', async (query, link) => {
      const before = (await query<{ before: number }>(purgeCutoff, [cutoff])).rows[0]?.before ?? cutoff;
      if (archive !== undefined)
        await archive.write((await query<AuditRow>(purgeable, [before])).rows.map(toAuditRecord));
      const cut = (await query<AuditChainCut>(chainCut, [before])).rows;
      const checkpoint = auditCheckpoint({ ...checkpointOf(cut), key: this.#auditKey });
      await query(authorisePurge, [String(before)]);
      const deleted = (await query(purge, [before])).rowCount;
      await query(authorisePurge, ['']);
      const linked = link([row(checkpoint, before, deleted)]);
      await query(insertLinkedRows(linked.length), linked.flat());
      return { before, deleted };
    });
  }

  /**
   * Records an entry on this log's chain of its tenant (see
   * `PostgresChainWriter`): no lock, no read, one INSERT shared with the
   * entries of the same tenant that arrive while the one before is written.
   */
  append(entry: AuditEntry): Promise<void> {
    return this.#chains.append(toAuditRowValues(entry));
  }

  /**
   * Recomputes the hash chain of every tenant over the whole log and names
   * the first row where each break shows: see `verifyAuditChain`.
   *
   * @example
   * const { ok, findings } = await audit.verifyChain();
   */
  async verifyChain({
    key = this.#auditKey,
    anchored,
  }: {
    key?: string | undefined;
    /** The chains of an anchor whose signature holds (`checkAuditAnchor`): rows deleted after it are named. */
    anchored?: readonly AnchoredChain[];
  } = {}): Promise<AuditChainReport> {
    const rows = (await this.#database.query<AuditRow>(everyRow, [])).rows;
    return verifyAuditRows({ rows, origin: await this.#origin(), key, anchored });
  }

  /** When the chain began; undefined when the record is gone (the table dropped or its row deleted). */
  async #origin(): Promise<AuditChainOriginRow | undefined> {
    try {
      return (await this.#database.query<AuditChainOriginRow>(chainOrigin, [])).rows[0];
    } catch (error) {
      if ((error as { code?: unknown }).code === '42P01') return undefined;
      throw error;
    }
  }

  /**
   * Calls of one tool that executed and succeeded (outcome `ok`), oldest
   * first, narrowed by run, session, principal, time and decision.
   */
  async findCalls({
    tool,
    runId,
    sessionId,
    tenantId,
    userId,
    since,
    decisions = executed,
  }: CallHistoryFilter): Promise<PastCall[]> {
    const values: unknown[] = [tool, [...decisions]];
    const clauses = ['tool = $1', "outcome = 'ok'", 'decision = ANY($2::text[])'];
    for (const [clause, value] of [
      ['run_id = $', runId],
      ['session_id = $', sessionId],
      ['tenant_id IS NOT DISTINCT FROM $', tenantId],
      ['user_id IS NOT DISTINCT FROM $', userId],
      ['at >= $', since],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      clauses.push(`${clause}${values.length}`);
    }
    const { rows } = await this.#database.query<AuditRow>(
      namedStatement(`SELECT ${columns} FROM audit_log WHERE ${clauses.join(' AND ')} ORDER BY audit_id`),
      values,
    );
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
  async listAudit({
    sessionId,
    runId,
    toolCallId,
    limit,
  }: {
    sessionId?: string;
    runId?: string;
    toolCallId?: string;
    limit?: number;
  } = {}): Promise<readonly AuditRecord[]> {
    const clauses: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [
      ['session_id', sessionId],
      ['run_id', runId],
      ['tool_call_id', toolCallId],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      clauses.push(`${column} = $${values.length}`);
    }
    const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
    if (limit !== undefined) values.push(limit);
    const bounded = limit === undefined ? '' : `LIMIT $${values.length}`;
    const { rows } = await this.#database.query<AuditRow>(
      namedStatement(`SELECT ${columns} FROM audit_log ${where} ORDER BY audit_id ${bounded}`),
      values,
    );
    return rows.map(toAuditRecord);
  }
}
