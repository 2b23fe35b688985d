import type Database from 'better-sqlite3';
import { linkAuditRows } from '../../gate/audit-chain.js';
import { type AuditRowValues, auditColumnIndex } from '../audit-rows.js';

/** Adds `previous_hash` and `chain_hash` to rows about to be inserted, inside the write transaction. */
export type SqliteAuditChain = (rows: readonly AuditRowValues[]) => AuditRowValues[];

/**
 * The hash chain of a SQLite audit log (see `audit-chain.ts`), linked in the
 * write transaction that inserts the rows. The heads of the chains are
 * cached per connection, and trusted only while the newest row of the log is
 * still the one this connection wrote last (one indexed read of the rowid
 * tree's end): after another connection or process wrote, or a transaction
 * rolled back, the cache is dropped and each chain's head is read again from
 * the log, inside the same transaction, so two writers never fork a chain.
 *
 * @example
 * const chain = createSqliteAuditChain(database);
 * database.transaction(() => insert(chain(rows)))();
 */
export function createSqliteAuditChain(database: Database.Database): SqliteAuditChain {
  const heads = new Map<string, string | null>();
  let lastWritten: string | null = null;
  // Prepared on first use once the log has the chain's columns: before migration 28 (a log opened on an older
  // schema, as the migration tests do) rows are written without hashes, as they were.
  let statements: { newest: Database.Statement; headOf: Database.Statement } | undefined;
  let chained: boolean | undefined;
  const prepare = () => ({
    newest: database.prepare('SELECT chain_hash FROM audit_log ORDER BY audit_id DESC LIMIT 1').pluck(),
    headOf: database
      .prepare('SELECT chain_hash FROM audit_log WHERE coalesce(tenant_id, ?) = ? ORDER BY audit_id DESC LIMIT 1')
      .pluck(),
  });
  return (rows) => {
    if (rows.length === 0) return [];
    // Asked once per connection: a log without the chain's columns (before migration 28) stays without them.
    chained ??= hasChainColumns(database);
    if (!chained) return [...rows];
    statements ??= prepare();
    const { newest, headOf } = statements;
    const current = (newest.get() as string | null | undefined) ?? null;
    if (lastWritten === null || current !== lastWritten) heads.clear();
    const linked = linkAuditRows({
      rows,
      tenantColumn: auditColumnIndex.tenant,
      heads,
      headOf: (tenant) => (headOf.get('', tenant) as string | null | undefined) ?? null,
    });
    lastWritten = (linked[linked.length - 1] as AuditRowValues)[auditColumnIndex.chainHash] as string;
    return linked;
  };
}

function hasChainColumns(database: Database.Database): boolean {
  return (database.pragma('table_info(audit_log)') as { name: string }[]).some(
    (column) => column.name === 'chain_hash',
  );
}
