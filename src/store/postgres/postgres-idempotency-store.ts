import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { ToolOutcome } from '../../core/tool-outcome.js';
import type {
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyStore,
  ResolveUnknownRequest,
} from '../../gate/idempotency-store.js';
import { inFlightKeyOf, type ScopedKey, scopeIdempotencyKey, unknownClaimGuard } from '../idempotency-key-scope.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

interface KeyRow {
  claimant_user_id: string;
  status: 'claimed' | 'completed';
  run_id: string;
  tool_call_id: string;
  owner: string;
  outcome: string | null;
  claimed_at: number;
}

/** How an in-flight call of this process ended, for the calls waiting on it. */
type Settled = { kind: 'completed'; outcome: ToolOutcome } | { kind: 'released' } | { kind: 'unknown' };

/** This process: its id and a random token, so a recycled pid is never mistaken for a live owner. */
const processOwner = `${process.pid}:${randomBytes(8).toString('hex')}`;

/** In-flight calls per pool: a duplicate in this process waits for the first instead of being told "unknown". */
const inFlightByPool = new WeakMap<pg.Pool, Map<string, Promise<Settled>>>();

const insertClaim = namedStatement(
  `INSERT INTO idempotency_claims
     (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id, tool_call_id, owner, claimed_at)
   VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $7, $8, $9)
   ON CONFLICT (tenant_id, scope_user_id, key) DO NOTHING`,
);
const selectClaim = namedStatement(
  `SELECT claimant_user_id, status, run_id, tool_call_id, owner, outcome, claimed_at FROM idempotency_claims
   WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3`,
);
const completeClaim = namedStatement(
  `UPDATE idempotency_claims SET status = 'completed', outcome = $1, completed_at = $2
   WHERE tenant_id = $3 AND scope_user_id = $4 AND key = $5 AND owner = $6 AND status = 'claimed'`,
);
const releaseClaim = namedStatement(
  `DELETE FROM idempotency_claims
   WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3 AND owner = $4 AND status = 'claimed'`,
);

const unknownClaimWhere = `WHERE tenant_id = $1 AND scope_user_id = $2 AND key = $3 AND claimant_user_id = $4
   AND status = 'claimed' AND run_id = $5 AND tool_call_id = $6 AND claimed_at = $7`;
const completeUnknownClaim = namedStatement(
  `UPDATE idempotency_claims SET status = 'completed', outcome = $8, completed_at = $9 ${unknownClaimWhere}`,
);
const retakeUnknownClaim = namedStatement(
  `UPDATE idempotency_claims SET run_id = $8, tool_call_id = $9, tool = $10, owner = $11, claimed_at = $12
   ${unknownClaimWhere}`,
);

/**
 * Idempotency keys in PostgreSQL, with the behaviour of
 * `SqliteIdempotencyStore`: `claim` inserts the key before the call runs,
 * and the primary key (tenant, user, key) makes every other insert of it
 * lose, on any node; with `scope: 'tenant'` the user part is empty and the
 * claimant is stored beside it.
 *
 * - first claim: `claimed`; the caller executes and calls `complete`;
 * - a tenant-wide key another user claimed: `claimed_by_another_user`;
 * - a completed key: the first outcome, without executing;
 * - a key another call of this process is executing right now: waits for
 *   that call and returns its outcome as `completed`;
 * - a key claimed but never completed by another (possibly dead) process or
 *   node, or claimed longer ago than `staleAfterMs`: `outcome_unknown`,
 *   never executed again automatically.
 *
 * @example
 * const { idempotency } = await openPostgresBackend({ connectionString });
 * await runAgent({ model, tools, messages, idempotency });
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  readonly #database: PostgresDatabase;
  readonly #staleAfterMs: number;
  readonly #now: () => number;
  readonly #inFlight: Map<string, Promise<Settled>>;

  constructor({
    database,
    staleAfterMs = 10 * 60 * 1000,
    now = Date.now,
  }: {
    database: PostgresDatabase;
    /** After this long a call of this process still running counts as unknown. Default ten minutes. */
    staleAfterMs?: number;
    now?: () => number;
  }) {
    this.#database = database;
    this.#staleAfterMs = staleAfterMs;
    this.#now = now;
    let inFlight = inFlightByPool.get(database.pool);
    if (inFlight === undefined) {
      inFlight = new Map();
      inFlightByPool.set(database.pool, inFlight);
    }
    this.#inFlight = inFlight;
  }

  /** The owner token this process writes into the keys it claims. */
  static get processOwner(): string {
    return processOwner;
  }

  async claim({
    key,
    claimant,
    scope = 'principal',
    runId,
    toolCallId,
    tool,
  }: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const scoped = scopeIdempotencyKey({ key, claimant, scope });
    const inFlightKey = `${this.#database.schema ?? ''}\u0000${inFlightKeyOf(scoped)}`;
    for (;;) {
      const now = this.#now();
      const inserted = await this.#database.query(insertClaim, [
        scoped.tenantId,
        scoped.scopeUserId,
        key,
        claimant.userId,
        tool,
        runId,
        toolCallId,
        processOwner,
        now,
      ]);
      if (inserted.rowCount === 1) return this.#claimed(scoped, inFlightKey);

      const row = (await this.#database.query<KeyRow>(selectClaim, [scoped.tenantId, scoped.scopeUserId, key])).rows[0];
      // Released between the insert and the read: try to claim it again.
      if (row === undefined) continue;
      const original = { runId: row.run_id, toolCallId: row.tool_call_id };
      if (row.claimant_user_id !== claimant.userId) return { status: 'claimed_by_another_user', original };
      if (row.status === 'completed') {
        return { status: 'completed', outcome: JSON.parse(row.outcome ?? 'null') as ToolOutcome, original };
      }
      const running = this.#inFlight.get(inFlightKey);
      const age = now - row.claimed_at;
      if (row.owner !== processOwner || running === undefined || age >= this.#staleAfterMs) {
        return { status: 'outcome_unknown', claimedAt: row.claimed_at, original };
      }
      const settled = await waitAtMost(running, this.#staleAfterMs - age);
      if (settled.kind === 'completed') return { status: 'completed', outcome: settled.outcome, original };
      if (settled.kind === 'unknown') return { status: 'outcome_unknown', claimedAt: row.claimed_at, original };
    }
  }

  /**
   * Completes or re-takes an `outcome_unknown` key, only while it is still
   * the claim `unknown` read (see `ResolveUnknownRequest`); a re-take moves
   * `claimed_at` strictly forward, so the loser of a race no longer matches.
   */
  async resolveUnknown(request: ResolveUnknownRequest): Promise<IdempotencyClaim> {
    const { unknown, resolution } = request;
    const scoped = scopeIdempotencyKey(request);
    const guard = unknownClaimGuard(request);
    if (resolution.kind === 'completed') {
      const changed = await this.#database.query(completeUnknownClaim, [
        ...guard,
        JSON.stringify(resolution.outcome),
        this.#now(),
      ]);
      if (changed.rowCount === 1) {
        return { status: 'completed', outcome: resolution.outcome, original: unknown.original };
      }
      return this.claim(request);
    }
    const changed = await this.#database.query(retakeUnknownClaim, [
      ...guard,
      request.runId,
      request.toolCallId,
      request.tool,
      processOwner,
      Math.max(this.#now(), Number(unknown.claimedAt) + 1),
    ]);
    if (changed.rowCount === 1) {
      const inFlightKey = `${this.#database.schema ?? ''}\u0000${inFlightKeyOf(scoped)}`;
      return this.#claimed(scoped, inFlightKey);
    }
    return this.claim(request);
  }

  #claimed({ tenantId, scopeUserId, key }: ScopedKey, inFlightKey: string): IdempotencyClaim {
    let settle: (settled: Settled) => void = () => {};
    const running = new Promise<Settled>((resolve) => {
      settle = resolve;
    });
    this.#inFlight.set(inFlightKey, running);
    let done = false;
    const finish = async (settled: Settled, write: () => Promise<unknown>): Promise<void> => {
      if (done) return;
      done = true;
      try {
        await write();
      } finally {
        if (this.#inFlight.get(inFlightKey) === running) this.#inFlight.delete(inFlightKey);
        settle(settled);
      }
    };
    return {
      status: 'claimed',
      complete: (outcome) =>
        finish({ kind: 'completed', outcome }, () =>
          this.#database.query(completeClaim, [
            JSON.stringify(outcome),
            this.#now(),
            tenantId,
            scopeUserId,
            key,
            processOwner,
          ]),
        ),
      release: () =>
        finish({ kind: 'released' }, () =>
          this.#database.query(releaseClaim, [tenantId, scopeUserId, key, processOwner]),
        ),
      abandon: () => finish({ kind: 'unknown' }, async () => {}),
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
