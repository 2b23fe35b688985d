import { type RunRecord, type RunRow, type RuntimeStore, toRunRecord } from '../runtime-store.js';
import type { Answer, SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram, type SqlStatement, type SqlValue } from '../sql/sql-program.js';
import { listRuns, listSessionRuns, saveRun } from './runtime-statements.js';

/**
 * The runtime store's finished runs (table `runs`) on either dialect,
 * written once, and the schema version its backend migrated to. It answers
 * as its port does: at once on SQLite (`SqliteStore`), with promises on
 * PostgreSQL (`PostgresRuntimeStore`); each closes what it owns (`close`):
 * SQLite its connection and checkpoint thread, PostgreSQL its pool.
 *
 * @example
 * const store = openSqliteStore({ path: ':memory:' }); // a SqlRuntimeStore<'sync'>
 * store.saveRun(record);
 * store.listRuns({ sessionId, limit: 10 }); // newest first
 */
export abstract class SqlRuntimeStore<Mode extends SqlMode> implements RuntimeStore {
  /** The schema version after migrations ran. */
  readonly schemaVersion: number;
  protected readonly port: SqlPort<Mode>;

  constructor({ port, schemaVersion }: { port: SqlPort<Mode>; schemaVersion: number }) {
    this.port = port;
    this.schemaVersion = schemaVersion;
  }

  /** Records a finished run; saving one again replaces it. */
  saveRun(record: RunRecord): Answer<Mode, void> {
    return this.port.run(save(record));
  }

  /** The latest runs, newest first: `limit` of them (default 100), of one session when `sessionId` is given. */
  listRuns({
    sessionId,
    limit = 100,
  }: {
    sessionId?: string;
    limit?: number;
  } = {}): Answer<Mode, readonly RunRecord[]> {
    return this.port.run(
      sessionId === undefined ? runRecords(listRuns, [limit]) : runRecords(listSessionRuns, [sessionId, limit]),
    );
  }

  abstract close(): Answer<Mode, void>;
}

function* save(record: RunRecord): SqlProgram<void> {
  yield* run(saveRun, [
    record.runId,
    record.sessionId ?? null,
    record.model,
    record.startedAt,
    record.endedAt,
    record.stopReason,
    record.steps,
    record.inputTokens,
    record.outputTokens,
    record.errorCode ?? null,
  ]);
}

function* runRecords(statement: SqlStatement, values: readonly SqlValue[]): SqlProgram<readonly RunRecord[]> {
  return (yield* rows<RunRow>(statement, values)).map(toRunRecord);
}
