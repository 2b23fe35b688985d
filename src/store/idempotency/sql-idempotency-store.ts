import type { ToolOutcome } from '../../core/tool-outcome.js';
import { retakenClaimedAt, type Settled, type StoredClaim } from '../../gate/idempotency-claim-rules.js';
import type {
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyStore,
  ResolveUnknownRequest,
} from '../../gate/idempotency-store.js';
import type { SqlMode, SqlPort } from '../sql/sql-port.js';
import { rows, run, type SqlProgram } from '../sql/sql-program.js';
import {
  claimedCall,
  claimKeyLoop,
  type InFlightCalls,
  inFlightCallsOf,
  type KeyReservation,
  processOwner,
  renewWhileRunning,
  takeKey,
} from './claims-in-flight.js';
import { inFlightKeyOf, type ScopedKey, scopeIdempotencyKey, unknownClaimGuard } from './idempotency-key-scope.js';
import { idempotencyStatements as statements } from './idempotency-statements.js';

/** A row of `idempotency_claims` as both dialects read it. */
interface ClaimRow {
  claimant_user_id: string;
  status: 'claimed' | 'completed';
  run_id: string;
  tool_call_id: string;
  owner: string;
  outcome: string | null;
  claimed_at: number;
  renewed_at: number | null;
  lease_ms: number | null;
  store_now: number;
}

/** Runs a write: at once, or (SQLite under load) again while the database is locked. */
export type WriteRetry = <Result>(operation: string, write: () => Result) => Result | Promise<Result>;

/**
 * Idempotency keys in SQL, one class for both dialects (`SqliteIdempotencyStore`
 * and `PostgresIdempotencyStore` give it their port): `claim` inserts the key
 * before the call runs, and the primary key (tenant, user, key) makes every
 * other insert of it lose, in any process or node; with `scope: 'tenant'`
 * the user part is empty and the claimant is stored beside it.
 *
 * - first claim: `claimed`; the caller executes and calls `complete`;
 * - a tenant-wide key another user claimed: `claimed_by_another_user`;
 * - a completed key: the first outcome, without executing;
 * - a key another call of this process is executing right now: waits for
 *   that call and returns its outcome as `completed`;
 * - a key claimed but never completed by another process or node:
 *   `outcome_unknown`, never executed again automatically, and marked
 *   `ownerMayBeRunning` while its owner renews it (`answerExistingClaim`
 *   decides; a live owner's key is first read again for up to its lease).
 *
 * While this process executes a call, it renews the key every third of
 * `leaseMs` on the database's clock, for up to `staleAfterMs`; a reader
 * judges the owner gone once the key has been silent longer than the lease
 * the owner wrote, measured on the database's clock, never its own.
 *
 * @example
 * const idempotency = new SqlIdempotencyStore({ port: new PostgresPort(database), database: 'postgres:…' });
 * await runAgent({ model, tools, messages, idempotency });
 */
export class SqlIdempotencyStore implements IdempotencyStore {
  readonly #port: SqlPort<SqlMode>;
  readonly #staleAfterMs: number;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #inFlight: InFlightCalls;
  readonly #namespace: string;
  readonly #write: WriteRetry;
  readonly #keysBeforeScoping: boolean;

  constructor({
    port,
    database,
    namespace = '',
    staleAfterMs = 10 * 60 * 1000,
    leaseMs = 15_000,
    now = Date.now,
    write = (_operation, write) => write(),
    keysBeforeScoping = false,
  }: {
    port: SqlPort<SqlMode>;
    /** The database, as one value per database in this process: its calls in flight are shared by every store on it. */
    database: string | object;
    /** Keys of this store apart from others on the same database (a PostgreSQL schema). */
    namespace?: string;
    /** After this long a call of this process still running counts as unknown. Default ten minutes. */
    staleAfterMs?: number;
    /**
     * The lease this process promises to renew its keys within while their calls run (renewed every third of
     * it): once silent longer, a key is judged abandoned by any reader. Default 15 seconds.
     */
    leaseMs?: number;
    /** This process's clock: the time a key is claimed and completed (ages of other processes' keys are read on the database's). */
    now?: () => number;
    /** How a write runs (SQLite: tried again while another connection holds the lock). Default: once. */
    write?: WriteRetry;
    /** Whether keys claimed before keys were scoped may exist (a SQLite database upgraded through migration 13). */
    keysBeforeScoping?: boolean;
  }) {
    this.#port = port;
    this.#staleAfterMs = staleAfterMs;
    if (!Number.isSafeInteger(leaseMs) || leaseMs < 30) {
      throw new RangeError(`leaseMs must be a whole number of milliseconds, at least 30 (got ${leaseMs})`);
    }
    this.#leaseMs = leaseMs;
    this.#now = now;
    this.#inFlight = inFlightCallsOf(database);
    this.#namespace = namespace;
    this.#write = write;
    this.#keysBeforeScoping = keysBeforeScoping;
  }

  /** The owner token this process writes into the keys it claims. */
  static get processOwner(): string {
    return processOwner;
  }

  async claim(request: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const { key, claimant } = request;
    const scoped = scopeIdempotencyKey(request);
    if (this.#keysBeforeScoping && claimant.tenantId !== '') {
      // Claimed before keys were scoped, by a principal nobody recorded: it may have run for this caller.
      const [earlier] = await this.#port.run(
        rows<{ run_id: string; tool_call_id: string; claimed_at: number }>(statements.beforeScoping, [key]),
      );
      if (earlier !== undefined) {
        return {
          status: 'outcome_unknown',
          claimedAt: earlier.claimed_at,
          original: { runId: earlier.run_id, toolCallId: earlier.tool_call_id },
        };
      }
    }
    return claimKeyLoop({
      inFlight: this.#inFlight,
      inFlightKey: this.#inFlightKey(scoped),
      claimantUserId: claimant.userId,
      staleAfterMs: this.#staleAfterMs,
      now: this.#now,
      insert: async (now) =>
        (await this.#write('idempotency claim', () =>
          this.#port.run(insertClaim(scoped, request, now, this.#leaseMs)),
        )) === 1,
      read: async () => {
        const [row] = await this.#port.run(
          rows<ClaimRow>(statements.select, [scoped.tenantId, scoped.scopeUserId, key]),
        );
        return row === undefined ? undefined : storedClaimOf(row);
      },
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
      const outcome = JSON.stringify(resolution.outcome);
      const changed = await this.#write('idempotency outcome', () =>
        this.#port.run(run(statements.completeUnknown, [...guard, outcome, this.#now()])),
      );
      if (changed === 1) return { status: 'completed', outcome: resolution.outcome, original: unknown.original };
      return this.claim(request);
    }
    const retaken = await takeKey({
      inFlight: this.#inFlight,
      inFlightKey: this.#inFlightKey(scoped),
      write: async () => {
        const claimedAt = retakenClaimedAt({ unknown, now: this.#now() });
        const taker = [request.runId, request.toolCallId, request.tool, processOwner, claimedAt];
        const values = [...guard, ...taker, request.toolFingerprint ?? null, this.#leaseMs];
        return (
          (await this.#write('idempotency claim', () => this.#port.run(run(statements.retakeUnknown, values)))) === 1
        );
      },
      claimed: (reservation) => this.#claimed(scoped, reservation),
    });
    return retaken ?? this.claim(request);
  }

  /** The key's in-flight key, per namespace: two schemas on one database are two sets of keys. */
  #inFlightKey(scoped: ScopedKey): string {
    return `${this.#namespace}\u0000${inFlightKeyOf(scoped)}`;
  }

  #claimed(scoped: ScopedKey, reservation: KeyReservation): IdempotencyClaim {
    const { tenantId, scopeUserId, key } = scoped;
    const stopRenewing = renewWhileRunning({
      renew: () =>
        this.#write('idempotency renewal', () =>
          this.#port.run(run(statements.renew, [tenantId, scopeUserId, key, processOwner])),
        ),
      everyMs: Math.max(10, Math.floor(this.#leaseMs / 3)),
      forMs: this.#staleAfterMs,
    });
    return claimedCall({
      reservation,
      finish: (end, settled) => {
        stopRenewing();
        let written: unknown;
        try {
          written = this.#write('idempotency outcome', () => this.#port.run(writeEnd(scoped, end, this.#now())));
        } catch (error) {
          settled();
          throw error;
        }
        // A synchronous port writes at once: no promise for the caller to wait on.
        if (written instanceof Promise) return written.then(() => undefined).finally(settled);
        settled();
        return undefined;
      },
    });
  }
}

/** Inserts the key as claimed by this process's call at `now`; answers the rows inserted (0: someone holds it). */
function* insertClaim(
  scoped: ScopedKey,
  request: IdempotencyClaimRequest,
  now: number,
  leaseMs: number,
): SqlProgram<number> {
  return yield* run(statements.insert, [
    scoped.tenantId,
    scoped.scopeUserId,
    scoped.key,
    request.claimant.userId,
    request.tool,
    request.runId,
    request.toolCallId,
    processOwner,
    now,
    request.toolFingerprint ?? null,
    leaseMs,
  ]);
}

/** Records how this process's call of a claimed key ended: its outcome, the key freed, or nothing (unknown). */
function* writeEnd({ tenantId, scopeUserId, key }: ScopedKey, end: Settled, now: number): SqlProgram<void> {
  if (end.kind === 'completed') {
    const outcome = JSON.stringify(end.outcome);
    yield* run(statements.complete, [outcome, now, tenantId, scopeUserId, key, processOwner]);
  } else if (end.kind === 'released') {
    yield* run(statements.release, [tenantId, scopeUserId, key, processOwner]);
  }
}

function storedClaimOf(row: ClaimRow): StoredClaim {
  return {
    claimantUserId: row.claimant_user_id,
    status: row.status,
    original: { runId: row.run_id, toolCallId: row.tool_call_id },
    owner: row.owner,
    outcome: row.outcome === null ? undefined : (JSON.parse(row.outcome) as ToolOutcome),
    claimedAt: Number(row.claimed_at),
    renewal:
      row.renewed_at === null || row.lease_ms === null
        ? undefined
        : { silentMs: Number(row.store_now) - Number(row.renewed_at), leaseMs: Number(row.lease_ms) },
    ageMs: Number(row.store_now) - Number(row.claimed_at),
  };
}
