import { type RunRecord, type RunRow, type RuntimeStore, toRunRecord } from '../runtime-store.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

const columns =
  'run_id, session_id, model, started_at, ended_at, stop_reason, steps, input_tokens, output_tokens, error_code';
const saveRun = namedStatement(
  `INSERT INTO runs (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
   ON CONFLICT (run_id) DO UPDATE SET session_id = EXCLUDED.session_id, model = EXCLUDED.model,
     started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, stop_reason = EXCLUDED.stop_reason,
     steps = EXCLUDED.steps, input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
     error_code = EXCLUDED.error_code`,
);
const listRuns = namedStatement(`SELECT ${columns} FROM runs ORDER BY started_at DESC LIMIT $1`);
const listSessionRuns = namedStatement(
  `SELECT ${columns} FROM runs WHERE session_id = $1 ORDER BY started_at DESC LIMIT $2`,
);

/**
 * Finished runs in PostgreSQL (table `runs`), and the schema version the
 * backend migrated to. `close` closes the backend's pool (when it is the
 * backend's own).
 *
 * @example
 * const { runtime } = await openPostgresBackend({ connectionString });
 * await runtime.saveRun(record);
 */
export class PostgresRuntimeStore implements RuntimeStore {
  readonly schemaVersion: number;
  readonly #database: PostgresDatabase;

  constructor({ database, schemaVersion }: { database: PostgresDatabase; schemaVersion: number }) {
    this.#database = database;
    this.schemaVersion = schemaVersion;
  }

  async saveRun(record: RunRecord): Promise<void> {
    await this.#database.query(saveRun, [
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

  async listRuns({
    sessionId,
    limit = 100,
  }: {
    sessionId?: string;
    limit?: number;
  } = {}): Promise<readonly RunRecord[]> {
    const { rows } =
      sessionId === undefined
        ? await this.#database.query<RunRow>(listRuns, [limit])
        : await this.#database.query<RunRow>(listSessionRuns, [sessionId, limit]);
    return rows.map(toRunRecord);
  }

  async close(): Promise<void> {
    await this.#database.close();
  }
}
