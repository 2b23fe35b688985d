/** One structured line of the server's log. Fields are values a machine can read; never a secret. */
export interface ServerLogEntry {
  readonly level: 'error' | 'warn' | 'info';
  /** What happened, e.g. `model_call_failed`, `session_recovered`. */
  readonly event: string;
  readonly [field: string]: unknown;
}

/** Where the server writes its structured log. */
export type ServerLogger = (entry: ServerLogEntry) => void;

/**
 * A logger that writes each entry as one JSON line (with `at`, an ISO time)
 * to `write`, by default standard error.
 *
 * @example
 * const logger = jsonLineLogger();
 * logger({ level: 'error', event: 'model_call_failed', runId, status: 401 });
 * // {"at":"2026-09-10T08:00:00.000Z","level":"error","event":"model_call_failed","runId":"…","status":401}
 */
export function jsonLineLogger({
  write = (line: string) => process.stderr.write(`${line}\n`),
  now = () => new Date(),
}: {
  write?: (line: string) => void;
  now?: () => Date;
} = {}): ServerLogger {
  return (entry) => write(JSON.stringify({ at: now().toISOString(), ...entry }));
}
