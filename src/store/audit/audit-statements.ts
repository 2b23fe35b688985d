import type { CallHistoryFilter } from '../../core/call-history.js';
import { executedDecisions } from '../../gate/audit-log.js';
import { auditRetentionFloorDays } from '../../gate/audit-retention.js';
import { auditChainColumns, auditWrittenColumns } from '../audit-rows.js';
import { historyReservationSql, postgresParameter } from '../history-reservations.js';
import { type SqlStatement, type SqlValue, sql, sqlOf } from '../sql/sql-program.js';

/**
 * The SQL of the audit store (`SqlAuditStore`), in both dialects, written
 * with `$1`, `$2`, … in both. Where the dialects differ it is only here:
 * which columns a read names, how the database's clock is read, how a
 * purge is let past the append-only triggers, and how the newest row of
 * each chain is picked.
 *
 * @module
 */

/** Every column of a row as both dialects read it back (PostgreSQL names them; SQLite reads `*`, whatever their order). */
const readColumns = `audit_id, ${auditWrittenColumns}, ${auditChainColumns}`;

/** The rows of `audit_log` that `clauses` (a `WHERE …`, an `ORDER BY …`) pick. */
function selectAuditRows(clauses: string): SqlStatement {
  return sqlOf({
    sqlite: `SELECT * FROM audit_log ${clauses}`,
    postgres: `SELECT ${readColumns} FROM audit_log ${clauses}`,
  });
}

/**
 * The condition of the rows a purge below `$1` deletes: those older than it that come before the first row that
 * is not, so every chain loses a prefix and never a row in its middle (a row's `at` can be older than the row
 * before it by a few milliseconds).
 */
const purgedRows =
  'at < $1 AND audit_id < (SELECT coalesce(min(audit_id), 9223372036854775807) FROM audit_log WHERE at >= $1)';

/**
 * The audit store's fixed statements.
 *
 * @example
 * const rows = yield* rows<AuditRow>(auditStatements.everyRow);
 */
export const auditStatements = {
  /** Every row, in the log's order (what `verifyChain` recomputes). */
  everyRow: selectAuditRows('ORDER BY audit_id'),
  /** The cutoff a purge below `$1` really uses: never later than 30 days ago by the database's clock. */
  purgeBefore: sqlOf({
    sqlite: `SELECT CAST(min($1, (julianday('now') - 2440587.5 - ${auditRetentionFloorDays}) * 86400000) AS INTEGER) AS before`,
    postgres: `SELECT LEAST($1::bigint,
     (extract(epoch FROM clock_timestamp()) * 1000)::bigint - ${auditRetentionFloorDays} * 86400000::bigint) AS before`,
  }),
  /** The rows a purge below `$1` deletes, oldest first (what the archive is handed). */
  purgeable: selectAuditRows(`WHERE ${purgedRows} ORDER BY audit_id`),
  /** The newest row each chain loses to a purge below `$1` (`AuditChainCutRow`): where the chain starts again. */
  chainCut: sqlOf({
    sqlite: `SELECT coalesce(tenant_id, '') AS tenant, chain_writer AS writer, chain_seq AS seq, chain_hash AS hash,
           max(audit_id) FROM audit_log WHERE ${purgedRows} AND chain_hash IS NOT NULL GROUP BY 1, 2`,
    postgres: `SELECT DISTINCT ON (coalesce(tenant_id, ''), chain_writer) coalesce(tenant_id, '') AS tenant,
     chain_writer AS writer, chain_seq AS seq, chain_hash AS hash FROM audit_log
   WHERE ${purgedRows} AND chain_hash IS NOT NULL
   ORDER BY coalesce(tenant_id, ''), chain_writer, audit_id DESC`,
  }),
  /**
   * Lets the append-only triggers pass a DELETE of rows older than `$1`,
   * for this transaction (SQLite: the one row of `audit_retention`,
   * migration 16; PostgreSQL: a transaction-local setting, migration 13).
   */
  authorisePurge: sqlOf({
    sqlite: 'INSERT INTO audit_retention (singleton, purge_before) VALUES (1, $1)',
    postgres: "SELECT set_config('arbiter.audit_purge_before', $1::text, true)",
  }),
  /** Deletes the rows a purge below `$1` removes. */
  deletePurged: sql(`DELETE FROM audit_log WHERE ${purgedRows}`),
  /** Takes back what `authorisePurge` allowed: the triggers refuse every DELETE again. */
  endPurge: sqlOf({
    sqlite: 'DELETE FROM audit_retention',
    postgres: "SELECT set_config('arbiter.audit_purge_before', '', true)",
  }),
  /** History reservations (`reserveHistoryInStore`): values key, holder, expiresAt, now. */
  reservation: {
    take: sql(historyReservationSql.take(postgresParameter)),
    renew: sql(historyReservationSql.renew(postgresParameter)),
    drop: sql(historyReservationSql.drop(postgresParameter)),
  },
} as const;

/** A statement whose text depends on what it is asked, with the values it binds. */
export interface BoundStatement {
  readonly statement: SqlStatement;
  readonly values: SqlValue[];
}

/**
 * The read of `findCalls`: the calls of one tool that executed and ended
 * `ok`, narrowed by what the filter gives, oldest first. One text per
 * shape of filter, each served by an index (gate migration tests).
 *
 * @example
 * const { statement, values } = findCallsStatement({ tool: 'send_payment', runId });
 */
export function findCallsStatement({
  tool,
  runId,
  sessionId,
  tenantId,
  userId,
  since,
  decisions = executedDecisions,
}: CallHistoryFilter): BoundStatement {
  const values: SqlValue[] = [tool, ...decisions];
  // `IN (NULL)` matches nothing, as no decision does; `IN ()` is SQLite's alone.
  const allowed = decisions.length === 0 ? 'NULL' : decisions.map((_, index) => `$${index + 2}`).join(', ');
  const clauses = ['tool = $1', "outcome = 'ok'", `decision IN (${allowed})`];
  for (const [clause, value] of [
    ['run_id =', runId],
    ['session_id =', sessionId],
    ['tenant_id IS NOT DISTINCT FROM', tenantId],
    ['user_id IS NOT DISTINCT FROM', userId],
    ['at >=', since],
  ] as const) {
    if (value === undefined) continue;
    values.push(value);
    clauses.push(`${clause} $${values.length}`);
  }
  return { statement: selectAuditRows(`WHERE ${clauses.join(' AND ')} ORDER BY audit_id`), values };
}

/**
 * The read of `listAudit`: entries in append order, optionally of one
 * session, run or tool call, at most `limit` of them.
 *
 * @example
 * const { statement, values } = listAuditStatement({ sessionId, limit: 50 });
 */
export function listAuditStatement({
  sessionId,
  runId,
  toolCallId,
  limit,
}: {
  sessionId?: string | undefined;
  runId?: string | undefined;
  toolCallId?: string | undefined;
  limit?: number | undefined;
}): BoundStatement {
  const clauses: string[] = [];
  const values: SqlValue[] = [];
  for (const [column, value] of [
    ['session_id', sessionId],
    ['run_id', runId],
    ['tool_call_id', toolCallId],
  ] as const) {
    if (value === undefined) continue;
    values.push(value);
    clauses.push(`${column} = $${values.length}`);
  }
  const where = clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')} `;
  if (limit !== undefined) values.push(limit);
  const bounded = limit === undefined ? '' : ` LIMIT $${values.length}`;
  return { statement: selectAuditRows(`${where}ORDER BY audit_id${bounded}`), values };
}

/** The columns an append writes: the entry's (`auditWrittenColumns`), then the chain's (`auditChainColumns`). */
const appendedColumns = `${auditWrittenColumns}, ${auditChainColumns}`;
const appendedWidth = appendedColumns.split(',').length;

/**
 * The INSERT of `rows` linked rows (values in the order of `appendedColumns`,
 * row after row), one statement shape per count. SQLite writes its rows
 * with its own statement (`createAuditRowInsert`), which binds what the
 * rows share only once.
 *
 * @example
 * yield* run(insertLinkedRowsStatement(linked.length), linked.flat());
 */
export function insertLinkedRowsStatement(rows: number): SqlStatement {
  const placeholders = Array.from(
    { length: rows },
    (_, row) =>
      `(${Array.from({ length: appendedWidth }, (_, column) => `$${row * appendedWidth + column + 1}`).join(', ')})`,
  );
  return sql(`INSERT INTO audit_log (${appendedColumns}) VALUES ${placeholders.join(', ')}`);
}
