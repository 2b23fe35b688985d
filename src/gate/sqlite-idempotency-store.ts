import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ToolOutcome } from '../tools/tool-types.js';
import type { IdempotencyClaim, IdempotencyStore } from './idempotency-store.js';

interface KeyRow {
  key: string;
  status: 'claimed' | 'completed';
  owner: string;
  outcome: string | null;
  claimed_at: number;
}

/** How an in-flight call of this process ended, for the calls waiting on it. */
type Settled = { kind: 'completed'; outcome: ToolOutcome } | { kind: 'released' } | { kind: 'unknown' };

/** This process: its id and a random token, so a recycled pid is never mistaken for a live owner. */
const processOwner = `${process.pid}:${randomBytes(8).toString('hex')}`;

/** In-flight calls per connection: a duplicate waits for the first instead of being told "unknown". */
const inFlightByDatabase = new WeakMap<Database.Database, Map<string, Promise<Settled>>>();

/**
 * Idempotency keys in SQLite. `claim` inserts the key before the call runs
 * (the primary key makes the second insert lose, across processes too):
 *
 * - first claim: `claimed`; the caller executes and calls `complete`;
 * - a completed key: the first outcome, without executing;
 * - a key another call of this process is executing right now: waits for
 *   that call and returns its outcome as `completed`;
 * - a key claimed but never completed by another (possibly dead) process,
 *   or claimed longer ago than `staleAfterMs`: `outcome_unknown`. Such a key
 *   is never executed again automatically; a person has to check.
 *
 * @example
 * const idempotency = new SqliteIdempotencyStore({ database: store.database });
 * await runAgent({ model, tools, messages, idempotency });
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  readonly #database: Database.Database;
  readonly #staleAfterMs: number;
  readonly #now: () => number;
  readonly #inFlight: Map<string, Promise<Settled>>;

  constructor({
    database,
    staleAfterMs = 10 * 60 * 1000,
    now = Date.now,
  }: {
    database: Database.Database;
    /** After this long a call of this process still running counts as unknown. Default ten minutes. */
    staleAfterMs?: number;
    now?: () => number;
  }) {
    this.#database = database;
    this.#staleAfterMs = staleAfterMs;
    this.#now = now;
    let inFlight = inFlightByDatabase.get(database);
    if (inFlight === undefined) {
      inFlight = new Map();
      inFlightByDatabase.set(database, inFlight);
    }
    this.#inFlight = inFlight;
  }

  /** The owner token this process writes into the keys it claims. */
  static get processOwner(): string {
    return processOwner;
  }

  async claim({
    key,
    runId,
    toolCallId,
    tool,
  }: {
    key: string;
    runId: string;
    toolCallId: string;
    tool: string;
  }): Promise<IdempotencyClaim> {
    for (;;) {
      const now = this.#now();
      const inserted = this.#database
        .prepare(
          `INSERT OR IGNORE INTO idempotency_keys (key, status, tool, run_id, tool_call_id, owner, claimed_at)
           VALUES (?, 'claimed', ?, ?, ?, ?, ?)`,
        )
        .run(key, tool, runId, toolCallId, processOwner, now);
      if (inserted.changes === 1) return this.#claimed(key);

      const row = this.#database
        .prepare('SELECT key, status, owner, outcome, claimed_at FROM idempotency_keys WHERE key = ?')
        .get(key) as KeyRow | undefined;
      if (row === undefined) continue;
      if (row.status === 'completed')
        return { status: 'completed', outcome: JSON.parse(row.outcome ?? 'null') as ToolOutcome };
      const running = this.#inFlight.get(key);
      const age = now - row.claimed_at;
      if (row.owner !== processOwner || running === undefined || age >= this.#staleAfterMs) {
        return { status: 'outcome_unknown', claimedAt: row.claimed_at };
      }
      const settled = await waitAtMost(running, this.#staleAfterMs - age);
      if (settled.kind === 'completed') return { status: 'completed', outcome: settled.outcome };
      if (settled.kind === 'unknown') return { status: 'outcome_unknown', claimedAt: row.claimed_at };
    }
  }

  #claimed(key: string): IdempotencyClaim {
    let settle: (settled: Settled) => void = () => {};
    const running = new Promise<Settled>((resolve) => {
      settle = resolve;
    });
    this.#inFlight.set(key, running);
    let done = false;
    const finish = (settled: Settled, write: () => void) => {
      if (done) return;
      done = true;
      try {
        write();
      } finally {
        if (this.#inFlight.get(key) === running) this.#inFlight.delete(key);
        settle(settled);
      }
    };
    return {
      status: 'claimed',
      complete: (outcome) =>
        finish({ kind: 'completed', outcome }, () => {
          this.#database
            .prepare(
              `UPDATE idempotency_keys SET status = 'completed', outcome = ?, completed_at = ?
               WHERE key = ? AND owner = ? AND status = 'claimed'`,
            )
            .run(JSON.stringify(outcome), this.#now(), key, processOwner);
        }),
      release: () =>
        finish({ kind: 'released' }, () => {
          this.#database
            .prepare("DELETE FROM idempotency_keys WHERE key = ? AND owner = ? AND status = 'claimed'")
            .run(key, processOwner);
        }),
      abandon: () => finish({ kind: 'unknown' }, () => {}),
    };
  }
}

async function waitAtMost(running: Promise<Settled>, milliseconds: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'unknown' }), Math.max(0, milliseconds));
  });
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
