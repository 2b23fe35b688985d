import type { EndRunRequest } from '../store/session-store.js';

/** A session's end offered to its run's terminal batch: whether that batch wrote it. */
export interface SessionEndOffer {
  /**
   * True once the terminal batch committed the session's end with it;
   * false when it will not (the batch failed, or took no offer within 2 s):
   * the caller then ends the session itself.
   */
  settle(): Promise<boolean>;
}

/** An offer: its request, whether a terminal batch took it, and how that batch's transaction ended. */
interface Offered {
  readonly request: EndRunRequest;
  /** Resolves once a batch took the offer. */
  readonly taken: Promise<void>;
  readonly take: () => void;
  readonly outcome: Promise<boolean>;
  readonly resolve: (committed: boolean) => void;
  isTaken: boolean;
}

/** How long an offer waits for its terminal batch to take it before its caller writes it alone. */
const takeWaitMs = 2000;
/** How many runs whose terminal batch found no offer are remembered (a later offer is refused at once). */
const rememberedRuns = 10_000;

/**
 * The end of a run on its session (`SessionStore.endRun`), written in the
 * transaction of the run's terminal event instead of one of its own: the
 * session store's `endRun` offers it (`offer`) as the run returns, just
 * after the terminal event was emitted, the event log takes it (`take`) as
 * it writes the batch holding that event, and tells how that ended
 * (`settled`). Each end is written exactly once: by the batch that took it
 * and committed, or by the caller when `settle` answers false (the batch
 * failed; or none took the offer within 2 s, and it is withdrawn; or the
 * run's terminal batch had been taken before the offer came, and it is
 * refused).
 *
 * @example
 * const ends = new RunSessionEnds();
 * const offer = ends.offer(request);        // the session store, as the run returns
 * const taken = ends.take('run-1');         // the event log: written in the terminal batch's transaction
 * ends.settled(['run-1'], true);
 * await offer?.settle();                    // true: nothing left to write
 */
export class RunSessionEnds {
  readonly #offers = new Map<string, Offered>();
  /** Runs whose terminal batch was written with no offer waiting (oldest first, bounded). */
  readonly #missed = new Set<string>();

  /** Offers the session's end of `request.runId` to its terminal batch; undefined when it is too late or offered already. */
  offer(request: EndRunRequest): SessionEndOffer | undefined {
    const { runId } = request;
    // Its terminal batch went without it: refused once (a resumed run's next end may be offered again).
    if (this.#missed.delete(runId) || this.#offers.has(runId)) return undefined;
    let take = () => {};
    const taken = new Promise<void>((done) => {
      take = done;
    });
    let resolve: (committed: boolean) => void = () => {};
    const outcome = new Promise<boolean>((done) => {
      resolve = done;
    });
    const offered: Offered = { request, taken, take, outcome, resolve, isTaken: false };
    this.#offers.set(runId, offered);
    return {
      settle: async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([taken, new Promise((done) => (timer = setTimeout(done, takeWaitMs)))]);
        clearTimeout(timer);
        if (!offered.isTaken) {
          // Withdrawn: no batch writes it once the caller has.
          this.#offers.delete(runId);
          return false;
        }
        const committed = await outcome;
        this.#offers.delete(runId);
        return committed;
      },
    };
  }

  /** The session's end offered for the run, now the batch's to write; undefined when none waits. */
  take(runId: string): EndRunRequest | undefined {
    const offered = this.#offers.get(runId);
    if (offered === undefined || offered.isTaken) {
      if (offered === undefined) this.#remember(runId);
      return undefined;
    }
    offered.isTaken = true;
    offered.take();
    return offered.request;
  }

  /** The batch that took these runs' ends committed (true) or failed (false: the callers write them). */
  settled(runIds: readonly string[], committed: boolean): void {
    for (const runId of runIds) this.#offers.get(runId)?.resolve(committed);
  }

  #remember(runId: string): void {
    this.#missed.add(runId);
    while (this.#missed.size > rememberedRuns) {
      const oldest = this.#missed.values().next().value;
      if (oldest === undefined) break;
      this.#missed.delete(oldest);
    }
  }
}
