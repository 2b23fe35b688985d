import type {
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyStore,
  ResolveUnknownRequest,
} from '../../gate/idempotency-store.js';
import {
  type ClaimRow,
  claimedCall,
  claimKeyLoop,
  claimValues,
  type InFlightCalls,
  inFlightCallsOf,
  type KeyReservation,
  processOwner,
  retakenClaimedAt,
  type Settled,
  takeKey,
} from '../idempotency-claims.js';
import { inFlightKeyOf, type ScopedKey, scopeIdempotencyKey, unknownClaimGuard } from '../idempotency-key-scope.js';
import { namedStatement } from './named-statement.js';
import type { PostgresDatabase } from './postgres-database.js';

const insertClaim = namedStatement(
  `INSERT INTO idempotency_claims
     (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id, tool_call_id, owner, claimed_at,
      tool_fingerprint)
   VALUES ($1, $2, $3, $4, 'claimed', $5, $6, $7, $8, $9, $10)
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
  `UPDATE idempotency_claims SET run_id = $8, tool_call_id = $9, tool = $10, owner = $11, claimed_at = $12,
     tool_fingerprint = $13
   ${unknownClaimWhere}`,
);

/** The database a pool reaches, as the name of its map of calls in flight: every pool to it shares one. */
function postgresDatabaseName({ pool }: PostgresDatabase): string {
  const { connectionString, host, port, database, user } = pool.options;
  return `postgres:${JSON.stringify([connectionString ?? null, host ?? null, port ?? null, database ?? null, user ?? null])}`;
}

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
  readonly #inFlight: InFlightCalls;

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
    // Per database: a duplicate in this process waits for the first, whichever store or pool it came through.
    this.#inFlight = inFlightCallsOf(postgresDatabaseName(database));
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
    toolFingerprint,
  }: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const scoped = scopeIdempotencyKey({ key, claimant, scope });
    return claimKeyLoop({
      inFlight: this.#inFlight,
      inFlightKey: this.#inFlightKey(scoped),
      claimantUserId: claimant.userId,
      staleAfterMs: this.#staleAfterMs,
      now: this.#now,
      insert: async (now) => {
        const request = { claimant, tool, runId, toolCallId, toolFingerprint };
        return (await this.#database.query(insertClaim, claimValues({ scoped, request, now }))).rowCount === 1;
      },
      read: async () =>
        (await this.#database.query<ClaimRow>(selectClaim, [scoped.tenantId, scoped.scopeUserId, key])).rows[0],
      claimed: (reservation) => this.#claimed(scoped, reservation),
    });
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
    const retaken = await takeKey({
      inFlight: this.#inFlight,
      inFlightKey: this.#inFlightKey(scoped),
      write: async () => {
        const values = [request.runId, request.toolCallId, request.tool, processOwner];
        const claimedAt = retakenClaimedAt({ unknown, now: this.#now() });
        const fingerprint = request.toolFingerprint ?? null;
        return (
          (await this.#database.query(retakeUnknownClaim, [...guard, ...values, claimedAt, fingerprint])).rowCount === 1
        );
      },
      claimed: (reservation) => this.#claimed(scoped, reservation),
    });
    return retaken ?? this.claim(request);
  }

  /** The key's in-flight key, per schema: two schemas on one pool are two databases. */
  #inFlightKey(scoped: ScopedKey): string {
    return `${this.#database.schema ?? ''}\u0000${inFlightKeyOf(scoped)}`;
  }

  #claimed(scoped: ScopedKey, reservation: KeyReservation): IdempotencyClaim {
    return claimedCall({
      reservation,
      finish: async (end, settled) => {
        try {
          await this.#writeEnd(scoped, end);
        } finally {
          settled();
        }
      },
    });
  }

  /** Records how this process's call of a claimed key ended: its outcome, the key freed, or nothing (unknown). */
  async #writeEnd({ tenantId, scopeUserId, key }: ScopedKey, end: Settled): Promise<void> {
    if (end.kind === 'completed') {
      await this.#database.query(completeClaim, [
        JSON.stringify(end.outcome),
        this.#now(),
        tenantId,
        scopeUserId,
        key,
        processOwner,
      ]);
    } else if (end.kind === 'released') {
      await this.#database.query(releaseClaim, [tenantId, scopeUserId, key, processOwner]);
    }
  }
}
