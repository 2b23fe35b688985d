import type Database from 'better-sqlite3';
import { auditGenesisHead } from '../../gate/audit-origin-seal.js';
import type { AuditChainHead } from '../../gate/audit-record-hash.js';
import { readAuditOrigin, toAuditOriginRecord } from '../audit/audit-origin.js';
import { type AuditRowValues, auditColumnIndex, linkAuditRowValues } from '../audit-rows.js';
import { SqlitePort } from '../sql/sqlite-port.js';

/** Adds the chain's values (`auditChainColumns`) to rows about to be inserted, inside the write transaction. */
export type SqliteAuditChain = (rows: readonly AuditRowValues[]) => AuditRowValues[];

/**
 * The writer of a SQLite file's chains: the file is one writer, since
 * SQLite lets one connection write at a time, so every connection and
 * process on it extends the same chain of each tenant.
 */
export const sqliteChainWriter = 'sqlite';

/**
 * The hash chains of a SQLite audit log (see `audit-chain.ts`), linked in the
 * write transaction that inserts the rows. The heads of the chains are
 * cached per connection, and trusted only while the newest row of the log is
 * still the one this connection wrote last (one indexed read of the rowid
 * tree's end): after another connection or process wrote, or a transaction
 * rolled back, the cache is dropped and each chain's head is read again from
 * the log, inside the same transaction, so two writers never fork a chain.
 * A tenant's first chain starts from the store's origin seal
 * (`auditGenesisHead`), read once per connection.
 *
 * @example
 * const chain = createSqliteAuditChain(database);
 * database.transaction(() => insert(chain(rows)))();
 */
export function createSqliteAuditChain(database: Database.Database): SqliteAuditChain {
  let heads = new Map<string, AuditChainHead | null>();
  let lastWritten: string | null = null;
  // Prepared on first use once the log has the chain's columns: before migrations 27 and 28 (a log opened on an
  // older schema, as the migration tests do) rows are written without hashes, as they were.
  let statements: { newest: Database.Statement; headOf: Database.Statement } | undefined;
  let chained: boolean | undefined;
  /** Where a new chain starts, read once (null, read too, for a store without an id or origin). */
  let genesis: { readonly head: AuditChainHead | null } | undefined;
  /** A chain's head as the log holds it, or where a new chain starts. */
  const headOfChain = (tenant: string): AuditChainHead | null =>
    (statements?.headOf.get('', tenant, sqliteChainWriter) as AuditChainHead | undefined) ?? genesis?.head ?? null;
  const prepare = () => ({
    newest: database.prepare('SELECT chain_hash FROM audit_log ORDER BY audit_id DESC LIMIT 1').pluck(),
    headOf: database.prepare(
      `SELECT chain_seq AS seq, chain_hash AS hash FROM audit_log
       WHERE coalesce(tenant_id, ?) = ? AND chain_writer = ? ORDER BY audit_id DESC LIMIT 1`,
    ),
  });
  return (rows) => {
    if (rows.length === 0) return [];
    // Asked once per connection: a log without the chain's columns stays without them.
    chained ??= hasChainColumns(database);
    if (!chained) return [...rows];
    statements ??= prepare();
    genesis ??= { head: auditGenesisHead(toAuditOriginRecord(readAuditOrigin<'sync'>(new SqlitePort(database)))) };
    const { newest } = statements;
    const current = (newest.get() as string | null | undefined) ?? null;
    // Moved on in place as the rows are linked: a transaction that rolls back leaves `lastWritten` ahead of the
    // log's newest row (and a link that throws leaves it null), so the next one drops these heads and reads them again.
    if (lastWritten === null || current !== lastWritten) heads = new Map();
    lastWritten = null;
    const linked = linkAuditRowValues({ rows, writer: sqliteChainWriter, heads, headOf: headOfChain });
    lastWritten = (linked.rows[linked.rows.length - 1] as AuditRowValues)[auditColumnIndex.chainHash] as string;
    return linked.rows;
  };
}

function hasChainColumns(database: Database.Database): boolean {
  const columns = new Set(
    (database.pragma('table_info(audit_log)') as { name: string }[]).map((column) => column.name),
  );
  return columns.has('chain_hash') && columns.has('chain_writer');
}
