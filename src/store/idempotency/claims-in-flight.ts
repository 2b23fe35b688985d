/**
 * The keys this process holds while their calls run: who this process is
 * (and whether another one may still be alive), the map of calls in flight
 * per database, a key taken into it before the write that makes it ours,
 * the claim loop, and how a claimed call lets its waiters go. What an
 * existing key answers is the gate's rule (`answerExistingClaim`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { answerExistingClaim, type Settled, type StoredClaim } from '../../gate/idempotency-claim-rules.js';
import type { IdempotencyClaim } from '../../gate/idempotency-store.js';

/** The calls of this process in flight on one database, by in-flight key (`inFlightKeyOf`). */
export type InFlightCalls = Map<string, Promise<Settled>>;

/** This machine, for people reading a claim: its host name and, on Linux, its boot id. */
function machineOf(): string {
  let boot = '';
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Not Linux: the host name alone.
  }
  return `${hostname().replaceAll(':', '_')}/${boot}`;
}

/**
 * This process as the owner of the keys it claims: its machine and id, for
 * a person reading the row, and a random token that makes it unique. Nobody
 * looks the pid up: containers on one host share host names and boot ids
 * but not pids, so an owner is judged alive only by its renewals in the
 * store (`ownerMayBeRunning`).
 *
 * @example
 * `INSERT INTO idempotency_claims (…, owner, …) VALUES (…, ${processOwner}, …)`
 */
export const processOwner = `${machineOf()}:${process.pid}:${randomBytes(8).toString('hex')}`;

const inFlightByDatabase = new Map<string, InFlightCalls>();
const inFlightByConnection = new WeakMap<object, InFlightCalls>();

/**
 * The calls of this process in flight on one database, shared by every
 * store and connection on it (`database`: a string naming the database, or
 * the connection of one nobody else can open, such as SQLite's `:memory:`):
 * a duplicate waits for the first instead of being told "unknown", and a
 * key of this process that is in no such map is known to have ended.
 *
 * @example
 * this.#inFlight = inFlightCallsOf(`sqlite:${resolve(database.name)}`);
 */
export function inFlightCallsOf(database: string | object): InFlightCalls {
  const known = typeof database === 'string' ? inFlightByDatabase.get(database) : inFlightByConnection.get(database);
  if (known !== undefined) return known;
  const inFlight: InFlightCalls = new Map();
  if (typeof database === 'string') inFlightByDatabase.set(database, inFlight);
  else inFlightByConnection.set(database, inFlight);
  return inFlight;
}

/**
 * A key this process is about to write as its own (an insert, a re-take),
 * entered in the in-flight map before the write, so no other call of the
 * process ever reads the row as this process's and finds nothing running.
 * `cancel` when the write did not make the key ours; `claimedCall` takes it
 * over when it did.
 */
export interface KeyReservation {
  readonly running: Promise<Settled>;
  /** Ends the reservation: out of the map, and its waiters let go with `settled`. */
  end(settled: Settled): void;
}

/** Reserves `inFlightKey` in `inFlight`; undefined when another call of this process holds it. */
function reserveKey(inFlight: InFlightCalls, inFlightKey: string): KeyReservation | undefined {
  if (inFlight.has(inFlightKey)) return undefined;
  let settle: (settled: Settled) => void = () => {};
  const running = new Promise<Settled>((resolve) => {
    settle = resolve;
  });
  inFlight.set(inFlightKey, running);
  return {
    running,
    end: (settled) => {
      if (inFlight.get(inFlightKey) === running) inFlight.delete(inFlightKey);
      settle(settled);
    },
  };
}

/**
 * Writes a key as this process's with `write` (true: the key is ours now)
 * while holding it in the in-flight map, and answers `claimed` when it
 * took. Undefined when the write did not take, or another call of this
 * process holds the key: read the key and answer from it.
 *
 * @example
 * const claimed = await takeKey({ inFlight, inFlightKey, write: insert, claimed: (reservation) => this.#claimed(scoped, reservation) });
 */
export async function takeKey({
  inFlight,
  inFlightKey,
  write,
  claimed,
}: {
  inFlight: InFlightCalls;
  inFlightKey: string;
  write: () => Promise<boolean> | boolean;
  claimed: (reservation: KeyReservation) => IdempotencyClaim;
}): Promise<IdempotencyClaim | undefined> {
  const reservation = reserveKey(inFlight, inFlightKey);
  if (reservation === undefined) return undefined;
  let took: boolean;
  try {
    took = await write();
  } catch (error) {
    reservation.end({ kind: 'released' });
    throw error;
  }
  if (took) return claimed(reservation);
  reservation.end({ kind: 'released' });
  return undefined;
}

/**
 * Claims a key, as both dialects do: insert it as this process's
 * (`takeKey`); when someone holds it, read it and answer from the row
 * (`answerExistingClaim`), waiting for a call of this process that holds
 * it; a key freed in between is tried again. A key another process is
 * executing (renewed within its lease) is read again until it completes, is
 * released or goes silent, for at most its lease: a duplicate then gets the
 * first outcome, and a killed owner's key is judged gone (and reconciled)
 * by the run that resumes its work, as soon as the store can tell.
 *
 * @example
 * return claimKeyLoop({ inFlight, inFlightKey, claimantUserId, staleAfterMs, now, insert, read, claimed });
 */
export async function claimKeyLoop({
  inFlight,
  inFlightKey,
  claimantUserId,
  staleAfterMs,
  now,
  insert,
  read,
  claimed,
}: {
  inFlight: InFlightCalls;
  inFlightKey: string;
  claimantUserId: string;
  staleAfterMs: number;
  now: () => number;
  /** Inserts the key claimed by this process at `time`; true when it was not there. */
  insert: (time: number) => Promise<boolean> | boolean;
  read: () => Promise<StoredClaim | undefined> | StoredClaim | undefined;
  claimed: (reservation: KeyReservation) => IdempotencyClaim;
}): Promise<IdempotencyClaim> {
  let waitingSince: number | undefined;
  let insertFirst = true;
  for (;;) {
    const time = now();
    if (insertFirst) {
      const taken = await takeKey({ inFlight, inFlightKey, write: () => insert(time), claimed });
      if (taken !== undefined) return taken;
    }
    insertFirst = true;
    const row = await read();
    const running = inFlight.get(inFlightKey);
    if (row === undefined) {
      // Released between the insert and the read, or another call of this process is about to insert it.
      if (running !== undefined) await running;
      continue;
    }
    const answer = await answerExistingClaim({
      claim: row,
      claimantUserId,
      thisProcess: processOwner,
      running,
      now: time,
      staleAfterMs,
    });
    if (answer === undefined) continue;
    const lease = row.renewal?.leaseMs;
    if (answer.status === 'outcome_unknown' && answer.ownerMayBeRunning === true && lease !== undefined) {
      waitingSince ??= performance.now();
      const pollMs = Math.min(1_000, Math.max(100, Math.floor(lease / 4)));
      if (performance.now() - waitingSince < lease + pollMs) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
        // Only read while someone holds it: the row tells whether it completed, was released or fell silent.
        insertFirst = false;
        continue;
      }
    }
    return answer;
  }
}

/**
 * Renews a claim of this process while its call runs: `renew` every
 * `everyMs`, for at most `forMs` (the stale age: then the process stops
 * vouching for the call and the claim goes silent). A failed renewal is
 * left to the next one. Returns the function that stops it.
 *
 * @example
 * const stop = renewWhileRunning({ renew: () => port.run(renewClaim(scoped)), everyMs: 5_000, forMs: staleAfterMs });
 */
export function renewWhileRunning({
  renew,
  everyMs,
  forMs,
}: {
  renew: () => unknown;
  everyMs: number;
  forMs: number;
}): () => void {
  const until = performance.now() + forMs;
  const timer = setInterval(() => {
    if (performance.now() >= until) {
      clearInterval(timer);
      return;
    }
    try {
      const renewed = renew();
      if (renewed instanceof Promise) renewed.catch(() => {});
    } catch {
      // The store is unreachable now: the next renewal tries again, and until then the claim may lapse.
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The `claimed` answer for a key this process just took (`takeKey`): the
 * call stays in flight under its reservation, and ends once, with the
 * first of `complete`, `release` and `abandon`. `finish` writes the end
 * (`completed`: the outcome; `released`: the key deleted; `unknown`:
 * nothing, the key stays claimed) and must call `settled` whether the
 * write succeeds or not: that lets the duplicates waiting on the call go.
 *
 * @example
 * claimed: (reservation) => claimedCall({ reservation, finish: async (end, settled) => { try { await write(end); } finally { settled(); } } }),
 */
export function claimedCall({
  reservation,
  finish,
}: {
  reservation: KeyReservation;
  finish: (end: Settled, settled: () => void) => Promise<void> | void;
}): IdempotencyClaim {
  let done = false;
  const end = (settled: Settled): Promise<void> | void => {
    if (done) return;
    done = true;
    return finish(settled, () => reservation.end(settled));
  };
  return {
    status: 'claimed',
    complete: (outcome) => end({ kind: 'completed', outcome }),
    release: () => end({ kind: 'released' }),
    abandon: () => end({ kind: 'unknown' }),
  };
}
