import type {
  CallHistory,
  CallHistoryFilter,
  CallHistoryQuery,
  CallHistorySource,
  HistoryRelease,
  PastCall,
} from '../core/call-history.js';
import type { Principal } from '../core/principal.js';

/** The history of one call's checks, and the principal's lock it may hold. */
export interface ScopedCallHistory {
  readonly history: CallHistory;
  /**
   * Lets the principal's next history-reading call go ahead. Call it once the
   * call is decided and, if it ran, audited; calling it again does nothing.
   */
  release(): void;
}

/** Per principal, the tail of the queue of calls whose rules read the history. */
const queues = new Map<string, Promise<void>>();

/**
 * The `context.history` of one tool call: every query scoped to the call's
 * run, session or principal, read from `source`. The first read takes the
 * principal's lock (in this process, and in the store when the source
 * is shared by several processes: `reserveHistory`), so a concurrent call of the same
 * principal whose rule reads the history waits until `release`: two runs
 * cannot both spend the same headroom of a cumulative limit. Calls whose
 * rules never read the history pay nothing.
 *
 * Windows: `run` is the call's run; `session` its session (the run, when it
 * has none); `day` the principal's calls (tenant + user) since midnight of
 * the query's time zone, on the clock `now`.
 *
 * @example
 * const scoped = createCallHistory({ source: audit, runId, sessionId, principal, tool: 'apply_refund' });
 * try { await gate.check({ tool, args, context: { ...context, history: scoped.history } }); } finally { scoped.release(); }
 */
export function createCallHistory({
  source,
  runId,
  sessionId,
  principal,
  tool,
  now = Date.now,
}: {
  /** Without a source the history is empty. */
  source: CallHistorySource | undefined;
  runId: string;
  sessionId: string | undefined;
  principal: Principal | undefined;
  /** The tool being checked: the default of a query's `tool`. */
  tool: string;
  now?: () => number;
}): ScopedCallHistory {
  return new HistoryScope(source, runId, sessionId, principal, tool, now);
}

/**
 * One call's history and lock, made for every call that reaches the gate:
 * two objects (this and the `history` a rule reads), its `calls` function
 * made only when first read, so a call whose rules and tool never read the
 * history allocates no closure for it.
 */
class HistoryScope implements ScopedCallHistory {
  readonly history: CallHistory;
  readonly #source: CallHistorySource | undefined;
  readonly #runId: string;
  readonly #sessionId: string | undefined;
  readonly #principal: Principal | undefined;
  readonly #tool: string;
  readonly #now: () => number;
  #locking: Promise<() => void> | undefined = undefined;
  #released = false;

  constructor(
    source: CallHistorySource | undefined,
    runId: string,
    sessionId: string | undefined,
    principal: Principal | undefined,
    tool: string,
    now: () => number,
  ) {
    this.#source = source;
    this.#runId = runId;
    this.#sessionId = sessionId;
    this.#principal = principal;
    this.#tool = tool;
    this.#now = now;
    this.history = new ScopedHistory(this);
  }

  async calls({
    tool: asked = this.#tool,
    within,
    decisions,
    timeZone = 'UTC',
  }: CallHistoryQuery): Promise<readonly PastCall[]> {
    const source = this.#source;
    if (source === undefined) return [];
    if (!this.#released) this.#locking ??= lockPrincipal(lockKeyOf(this.#principal), source);
    await this.#locking;
    const sessionId = this.#sessionId;
    const principal = this.#principal;
    const filter: CallHistoryFilter =
      within === 'run' || (within === 'session' && sessionId === undefined)
        ? { tool: asked, runId: this.#runId }
        : within === 'session'
          ? { tool: asked, sessionId: sessionId as string }
          : {
              tool: asked,
              tenantId: principal?.tenantId ?? null,
              userId: principal?.userId ?? null,
              since: startOfDay(this.#now(), timeZone),
            };
    return source.findCalls(decisions === undefined ? filter : { ...filter, decisions });
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    // A reservation that failed was never held: nothing to give back (the read that took it threw).
    void this.#locking?.then(
      (unlock) => unlock(),
      () => {},
    );
  }
}

/**
 * The `context.history` of one call. `calls` is its own function, as a
 * rule may take it from the object (`const { calls } = context.history`),
 * made on first read; the scope's `release` is not reachable from it.
 */
class ScopedHistory implements CallHistory {
  readonly #scope: HistoryScope;
  #calls: CallHistory['calls'] | undefined = undefined;

  constructor(scope: HistoryScope) {
    this.#scope = scope;
  }

  get calls(): CallHistory['calls'] {
    this.#calls ??= (query) => this.#scope.calls(query);
    return this.#calls;
  }
}

/** The principal's lock, by tenant and user (made only when a rule reads the history). */
function lockKeyOf(principal: Principal | undefined): string {
  return principal === undefined ? '' : `${principal.tenantId}\u0000${principal.userId}`;
}

/**
 * Takes the principal's lock in this process, then, where the source is a
 * store shared by several processes, its reservation in the store: this
 * process's callers queue here without polling the store, and one caller
 * per process competes for the store's reservation.
 */
async function lockPrincipal(key: string, source: CallHistorySource): Promise<() => void> {
  const previous = queues.get(key) ?? Promise.resolve();
  let unlock = () => {};
  const current = new Promise<void>((resolve) => {
    unlock = resolve;
  });
  const tail = previous.then(() => current);
  queues.set(key, tail);
  await previous;
  const unlockHere = () => {
    unlock();
    if (queues.get(key) === tail) queues.delete(key);
  };
  if (source.reserveHistory === undefined) return unlockHere;
  let releaseStored: HistoryRelease;
  try {
    releaseStored = await source.reserveHistory(key);
  } catch (error) {
    unlockHere();
    throw error;
  }
  return () => {
    // The next caller here starts once the store has the reservation back (or gave up trying: it lapses then).
    releaseStored().then(unlockHere, unlockHere);
  };
}

/**
 * Midnight of the day `at` falls on in `timeZone`, in epoch milliseconds.
 *
 * @example
 * startOfDay(Date.parse('2026-09-04T20:00:00Z'), 'Asia/Shanghai'); // Date.parse('2026-09-04T16:00:00Z')
 */
export function startOfDay(at: number, timeZone: string): number {
  const parts = wallClockFormat(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value);
  const wallClock = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  const offset = wallClock - (at - (((at % 1000) + 1000) % 1000));
  return Date.UTC(part('year'), part('month') - 1, part('day')) - offset;
}

/** One formatter per time zone: building an `Intl.DateTimeFormat` costs far more than using one. */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClockFormats.set(timeZone, format);
  }
  return format;
}
