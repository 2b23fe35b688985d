/**
 * A value, or a promise of it: what a storage interface returns when one
 * backend answers synchronously (SQLite through better-sqlite3) and another
 * cannot (PostgreSQL). A caller that does not know the backend awaits it;
 * awaiting a plain value costs one microtask and changes nothing else.
 *
 * @example
 * const seq: Awaitable<number> = log.lastSeq(runId);
 * send({ lastSeq: await seq });
 */
export type Awaitable<Value> = Value | Promise<Value>;
