import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type {
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyStore,
  ResolveUnknownRequest,
} from '../../gate/idempotency-store.js';
import { retryWhileBusy } from '../../util/retry-while-busy.js';
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
import { type PreparedStatements, preparedStatements } from './prepared-statements.js';

/**
 * Idempotency keys in SQLite. `claim` inserts the key before the call runs
 * (the primary key makes the second insert lose, across processes too). The
 * primary key is (tenant, user, key): a key of one principal never answers
 * another's claim; with `scope: 'tenant'` the user part is empty and the
 * claimant is stored beside it.
 *
 * - first claim: `claimed`; the caller executes and calls `complete`;
 * - a tenant-wide key another user claimed: `claimed_by_another_user`,
 *   whatever its state, with nothing of that user's outcome;
 * - a completed key: the first outcome, without executing;
 * - a key another call of this process is executing right now: waits for
 *   that call and returns its outcome as `completed`;
 * - a key claimed but never completed by another (possibly dead) process,
 *   or claimed longer ago than `staleAfterMs`: `outcome_unknown`. Such a key
 *   is never executed again automatically; a person has to check.
 * - a key claimed before keys were scoped (a database upgraded through
 *   migration 13), for a caller with a principal: `outcome_unknown` too, as
 *   nobody recorded whose call it was.
 *
 * Calls without a principal share one scope (tenant and user `''`), where
 * the keys from before the upgrade also live on.
 *
 * @example
 * const idempotency = new SqliteIdempotencyStore({ database: store.database });
 * await runAgent({ model, tools, messages, idempotency });
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  readonly #statement: PreparedStatements;
  readonly #staleAfterMs: number;
  readonly #now: () => number;
  readonly #busyWaitMs: number;
  readonly #inFlight: InFlightCalls;

  constructor({
    database,
    staleAfterMs = 10 * 60 * 1000,
    now = Date.now,
    busyWaitMs = 0,
  }: {
    database: Database.Database;
    /** After this long a call of this process still running counts as unknown. Default ten minutes. */
    staleAfterMs?: number;
    now?: () => number;
    /**
     * While another connection holds the database locked, retry a write
     * asynchronously for up to this long (`retryWhileBusy`) instead of
     * failing at once. Default 0: one try, within the connection's busy timeout.
     */
    busyWaitMs?: number;
  }) {
    this.#statement = preparedStatements(database);
    this.#staleAfterMs = staleAfterMs;
    this.#now = now;
    this.#busyWaitMs = busyWaitMs;
    // Per database file: a duplicate in this process waits for the first, whichever connection it came through.
    this.#inFlight = inFlightCallsOf(database.memory ? database : `sqlite:${resolve(database.name)}`);
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
    const inFlightKey = inFlightKeyOf(scoped);
    if (claimant.tenantId !== '') {
      // Claimed before keys were scoped, by a principal nobody recorded: it may have run for this caller.
      const earlier = this.#statement(
        'SELECT run_id, tool_call_id, claimed_at FROM idempotency_keys_before_scoping WHERE key = ?',
      ).get(key) as { run_id: string; tool_call_id: string; claimed_at: number } | undefined;
      if (earlier !== undefined) {
        return {
          status: 'outcome_unknown',
          claimedAt: earlier.claimed_at,
          original: { runId: earlier.run_id, toolCallId: earlier.tool_call_id },
        };
      }
    }
    const insert = (now: number) =>
      this.#statement(
        `INSERT OR IGNORE INTO idempotency_claims
             (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id, tool_call_id, owner, claimed_at,
              tool_fingerprint)
           VALUES (?, ?, ?, ?, 'claimed', ?, ?, ?, ?, ?, ?)`,
      ).run(claimValues({ scoped, request: { claimant, tool, runId, toolCallId, toolFingerprint }, now }));
    return claimKeyLoop({
      inFlight: this.#inFlight,
      inFlightKey,
      claimantUserId: claimant.userId,
      staleAfterMs: this.#staleAfterMs,
      now: this.#now,
      insert: async (now) => {
        const inserted =
          this.#busyWaitMs === 0
            ? insert(now)
            : await retryWhileBusy({
                operation: 'idempotency claim',
                waitMs: this.#busyWaitMs,
                write: () => insert(now),
              });
        return inserted.changes === 1;
      },
      read: () =>
        this.#statement(
          `SELECT claimant_user_id, status, run_id, tool_call_id, owner, outcome, claimed_at FROM idempotency_claims
             WHERE tenant_id = ? AND scope_user_id = ? AND key = ?`,
        ).get(scoped.tenantId, scoped.scopeUserId, key) as ClaimRow | undefined,
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
    const where = `WHERE tenant_id = ? AND scope_user_id = ? AND key = ? AND claimant_user_id = ? AND status = 'claimed'
        AND run_id = ? AND tool_call_id = ? AND claimed_at = ?`;
    if (resolution.kind === 'completed') {
      const changed = this.#statement(
        `UPDATE idempotency_claims SET status = 'completed', outcome = ?, completed_at = ? ${where}`,
      ).run(JSON.stringify(resolution.outcome), this.#now(), ...guard).changes;
      if (changed === 1) return { status: 'completed', outcome: resolution.outcome, original: unknown.original };
      return this.claim(request);
    }
    const retaken = await takeKey({
      inFlight: this.#inFlight,
      inFlightKey: inFlightKeyOf(scoped),
      write: () =>
        this.#statement(
          `UPDATE idempotency_claims SET run_id = ?, tool_call_id = ?, tool = ?, owner = ?, claimed_at = ?,
             tool_fingerprint = ? ${where}`,
        ).run(
          request.runId,
          request.toolCallId,
          request.tool,
          processOwner,
          retakenClaimedAt({ unknown, now: this.#now() }),
          request.toolFingerprint ?? null,
          ...guard,
        ).changes === 1,
      claimed: (reservation) => this.#claimed(scoped, reservation),
    });
    return retaken ?? this.claim(request);
  }

  #claimed(scoped: ScopedKey, reservation: KeyReservation): IdempotencyClaim {
    return claimedCall({
      reservation,
      finish: (end, settled) => {
        const write = () => this.#writeEnd(scoped, end);
        if (this.#busyWaitMs > 0) {
          return retryWhileBusy({ operation: 'idempotency outcome', waitMs: this.#busyWaitMs, write }).finally(settled);
        }
        try {
          write();
        } finally {
          settled();
        }
        return undefined;
      },
    });
  }

  /** Records how this process's call of a claimed key ended: its outcome, the key freed, or nothing (unknown). */
  #writeEnd({ tenantId, scopeUserId, key }: ScopedKey, end: Settled): void {
    if (end.kind === 'completed') {
      this.#statement(
        `UPDATE idempotency_claims SET status = 'completed', outcome = ?, completed_at = ?
           WHERE tenant_id = ? AND scope_user_id = ? AND key = ? AND owner = ? AND status = 'claimed'`,
      ).run(JSON.stringify(end.outcome), this.#now(), tenantId, scopeUserId, key, processOwner);
    } else if (end.kind === 'released') {
      this.#statement(
        `DELETE FROM idempotency_claims
           WHERE tenant_id = ? AND scope_user_id = ? AND key = ? AND owner = ? AND status = 'claimed'`,
      ).run(tenantId, scopeUserId, key, processOwner);
    }
  }
}
