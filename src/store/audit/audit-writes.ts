import type { AuditEntry } from '../../gate/audit-log.js';
import type { AuditArchive } from '../../gate/audit-retention.js';
import type { AuditRowValues } from '../audit-rows.js';
import type { Answer, SqlMode } from '../sql/sql-port.js';
import type { SqlProgram } from '../sql/sql-program.js';

/** What `append` answers: SQLite at once (or a promise while it waits out a lock), PostgreSQL a promise. */
export type AuditAppendAnswer<Mode extends SqlMode> = Mode extends 'sync' ? void | Promise<void> : Promise<void>;

/** The archive a purge hands its rows to: SQLite's purge runs synchronously, so only PostgreSQL's may write with a promise. */
export type AuditStoreArchive<Mode extends SqlMode> = Mode extends 'sync'
  ? AuditArchive
  : AuditArchive<void | Promise<void>>;

/**
 * Writes linked rows inside the transaction it is handed to: links each row
 * onto its chain (`auditChainColumns`) and inserts it.
 */
export type AuditChainWrite = (rows: readonly AuditRowValues[]) => SqlProgram<void>;

/**
 * How one dialect writes the audit log's chains, the part of the store
 * that is not the same in both: SQLite's file has one writer, whose rows
 * may wait for the connection's next transaction (`SqliteAuditWrites`);
 * PostgreSQL's nodes each write chains of their own, with no lock and no
 * read (`PostgresChainWriter`).
 */
export interface AuditWrites<Mode extends SqlMode> {
  /** Records an entry on its tenant's chain (see `AuditLog.append`). */
  append(entry: AuditEntry): AuditAppendAnswer<Mode>;
  /** Commits what waits to be written, before the log is read (so a read sees every append before it). */
  beforeRead(): void;
  /**
   * Runs `program` in one transaction that may write onto `tenant`'s chain
   * through the `AuditChainWrite` it is given; the chain moves on only if
   * the transaction commits.
   */
  inTransaction<Result>(tenant: string, program: (write: AuditChainWrite) => SqlProgram<Result>): Answer<Mode, Result>;
}
