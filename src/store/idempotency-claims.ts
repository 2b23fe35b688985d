/**
 * What both idempotency stores decide about a claim, whatever holds the
 * keys: who this process is, what an existing key answers a claimant, how
 * long a duplicate waits for a call of this process still running, when a
 * re-taken key is claimed, and how a claimed call lets its waiters go. The
 * dialects only say the SQL that inserts, reads, completes and deletes a
 * key (see also `idempotency-key-scope.ts`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { ToolOutcome } from '../core/tool-outcome.js';
import type { IdempotencyClaim, IdempotencyClaimRequest, ResolveUnknownRequest } from '../gate/idempotency-store.js';
import type { ScopedKey } from './idempotency-key-scope.js';

/** A row of `idempotency_claims` as both backends read it after losing the insert. */
export interface ClaimRow {
  claimant_user_id: string;
  status: 'claimed' | 'completed';
  run_id: string;
  tool_call_id: string;
  owner: string;
  outcome: string | null;
  claimed_at: number;
}

/** How an in-flight call of this process ended, for the calls waiting on it. */
export type Settled = { kind: 'completed'; outcome: ToolOutcome } | { kind: 'released' } | { kind: 'unknown' };

/** The calls of this process in flight on one database, by in-flight key (`inFlightKeyOf`). */
export type InFlightCalls = Map<string, Promise<Settled>>;

/**
 * This process as the owner of the keys it claims: its id and a random
 * token, so a recycled pid is never mistaken for a live owner.
 *
 * @example
 * `INSERT INTO idempotency_claims (…, owner, …) VALUES (…, ${processOwner}, …)`
 */
export const processOwner = `${process.pid}:${randomBytes(8).toString('hex')}`;

const inFlightByConnection = new WeakMap<object, InFlightCalls>();

/**
 * The calls in flight on one connection (a SQLite database, a PostgreSQL
 * pool), shared by every store on it: a duplicate waits for the first
 * instead of being told "unknown".
 *
 * @example
 * this.#inFlight = inFlightCallsOf(database);
 */
export function inFlightCallsOf(connection: object): InFlightCalls {
  let inFlight = inFlightByConnection.get(connection);
  if (inFlight === undefined) {
    inFlight = new Map();
    inFlightByConnection.set(connection, inFlight);
  }
  return inFlight;
}

/**
 * The row a claim inserts, in the order both dialects bind it: tenant,
 * scope user, key, claimant, tool, run, tool call, this process as owner,
 * the time and the tool definition's fingerprint (the status is `claimed`).
 *
 * @example
 * `INSERT INTO idempotency_claims (tenant_id, scope_user_id, key, claimant_user_id, status, tool, run_id, tool_call_id,
 *    owner, claimed_at, tool_fingerprint) VALUES (?, ?, ?, ?, 'claimed', ?, ?, ?, ?, ?, ?)`
 */
export function claimValues({
  scoped,
  request,
  now,
}: {
  scoped: ScopedKey;
  request: Pick<IdempotencyClaimRequest, 'claimant' | 'tool' | 'runId' | 'toolCallId' | 'toolFingerprint'>;
  now: number;
}): [string, string, string, string, string, string, string, string, number, string | null] {
  return [
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
  ];
}

/**
 * What a key someone already claimed answers `claimantUserId`:
 *
 * - another user's tenant-wide key: `claimed_by_another_user`, with nothing
 *   of that user's outcome;
 * - a completed key: its first outcome;
 * - a key claimed by another (possibly dead) process, or longer ago than
 *   `staleAfterMs`: `outcome_unknown`;
 * - a key a call of this process is executing: that call's outcome, waiting
 *   for it until the key would be stale; undefined when that call released
 *   the key (claim it again).
 *
 * @example
 * const answer = await existingClaimAnswer({ row, claimantUserId, running: inFlight.get(key), now, staleAfterMs });
 * if (answer !== undefined) return answer;
 */
export async function existingClaimAnswer({
  row,
  claimantUserId,
  running,
  now,
  staleAfterMs,
}: {
  row: ClaimRow;
  claimantUserId: string;
  /** The call of this process in flight with this key, if there is one. */
  running: Promise<Settled> | undefined;
  now: number;
  staleAfterMs: number;
}): Promise<IdempotencyClaim | undefined> {
  const original = { runId: row.run_id, toolCallId: row.tool_call_id };
  if (row.claimant_user_id !== claimantUserId) return { status: 'claimed_by_another_user', original };
  if (row.status === 'completed') {
    return { status: 'completed', outcome: JSON.parse(row.outcome ?? 'null') as ToolOutcome, original };
  }
  const age = now - row.claimed_at;
  if (row.owner !== processOwner || running === undefined || age >= staleAfterMs) {
    return { status: 'outcome_unknown', claimedAt: row.claimed_at, original };
  }
  const settled = await waitAtMost(running, staleAfterMs - age);
  if (settled.kind === 'completed') return { status: 'completed', outcome: settled.outcome, original };
  if (settled.kind === 'unknown') return { status: 'outcome_unknown', claimedAt: row.claimed_at, original };
  return undefined;
}

/**
 * The `claimed_at` a re-taken key gets: now, and strictly after the claim
 * it replaces, so a second resolver of the same read matches nothing.
 *
 * @example
 * retakenClaimedAt({ unknown, now: Date.now() });
 */
export function retakenClaimedAt({ unknown, now }: Pick<ResolveUnknownRequest, 'unknown'> & { now: number }): number {
  return Math.max(now, Number(unknown.claimedAt) + 1);
}

/**
 * The `claimed` answer for a key this process just claimed: registers the
 * call as in flight, and ends it once, with the first of `complete`,
 * `release` and `abandon`. `finish` writes the end (`completed`: the
 * outcome; `released`: the key deleted; `unknown`: nothing, the key stays
 * claimed) and must call `settled` whether the write succeeds or not: that
 * lets the duplicates waiting on the call go.
 *
 * @example
 * return claimedCall({ inFlight, inFlightKey, finish: async (end, settled) => { try { await write(end); } finally { settled(); } } });
 */
export function claimedCall({
  inFlight,
  inFlightKey,
  finish,
}: {
  inFlight: InFlightCalls;
  inFlightKey: string;
  finish: (end: Settled, settled: () => void) => Promise<void> | void;
}): IdempotencyClaim {
  let settle: (settled: Settled) => void = () => {};
  const running = new Promise<Settled>((resolve) => {
    settle = resolve;
  });
  inFlight.set(inFlightKey, running);
  let done = false;
  const end = (settled: Settled): Promise<void> | void => {
    if (done) return;
    done = true;
    return finish(settled, () => {
      if (inFlight.get(inFlightKey) === running) inFlight.delete(inFlightKey);
      settle(settled);
    });
  };
  return {
    status: 'claimed',
    complete: (outcome) => end({ kind: 'completed', outcome }),
    release: () => end({ kind: 'released' }),
    abandon: () => end({ kind: 'unknown' }),
  };
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
