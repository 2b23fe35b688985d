import type { Awaitable } from '../core/awaitable.js';
import type { StopReason } from '../core/stop-reason.js';

/** One finished run, as the store keeps it. */
export interface RunRecord {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly model: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly stopReason: StopReason;
  readonly steps: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly errorCode: string | undefined;
}

/**
 * arbiter's own storage, separate from any application's business data.
 * SQLite is the embedded default; the loop and the gate only see this
 * interface, so a PostgreSQL implementation can take its place. Methods may
 * answer synchronously (SQLite) or with a promise (PostgreSQL): a caller
 * that does not know its backend awaits the answer.
 *
 * @example
 * const store = openSqliteStore({ path: '.arbiter/arbiter.db' });
 * await store.saveRun(record);
 * await store.close();
 */
export interface RuntimeStore {
  /** The schema version after migrations ran. */
  readonly schemaVersion: number;
  saveRun(record: RunRecord): Awaitable<void>;
  listRuns(options?: { readonly sessionId?: string; readonly limit?: number }): Awaitable<readonly RunRecord[]>;
  close(): Awaitable<void>;
}

/** A row of `runs` as both backends read it. */
export interface RunRow {
  run_id: string;
  session_id: string | null;
  model: string;
  started_at: number;
  ended_at: number;
  stop_reason: string;
  steps: number;
  input_tokens: number;
  output_tokens: number;
  error_code: string | null;
}

/**
 * A stored row as the run it records.
 *
 * @example
 * const records = rows.map(toRunRecord);
 */
export function toRunRecord(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    sessionId: row.session_id ?? undefined,
    model: row.model,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    stopReason: row.stop_reason as StopReason,
    steps: row.steps,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    errorCode: row.error_code ?? undefined,
  };
}
