import type { ExternalEvent } from '../events/external-event.js';

/** Gets each event of the run it follows, once the event is in the log. */
export type RunFollower = (event: ExternalEvent) => void;

/**
 * The connections following each run: who gets a run's events once they
 * are logged. A run nobody follows any more holds no entry.
 *
 * @example
 * const followers = new RunFollowers();
 * const unfollow = followers.follow(runId, (event) => send(event));
 * followers.deliver(loggedEvents);
 * unfollow();
 */
export class RunFollowers {
  readonly #byRun = new Map<string, Set<RunFollower>>();

  /** Adds `follower` to the run's; returns the unfollow. */
  follow(runId: string, follower: RunFollower): () => void {
    let followers = this.#byRun.get(runId);
    if (followers === undefined) {
      followers = new Set();
      this.#byRun.set(runId, followers);
    }
    followers.add(follower);
    return () => {
      const current = this.#byRun.get(runId);
      current?.delete(follower);
      if (current?.size === 0) this.#byRun.delete(runId);
    };
  }

  /** Hands each event, in order, to the followers of its run. */
  deliver(events: readonly ExternalEvent[]): void {
    for (const event of events) {
      for (const follower of this.#byRun.get(event.runId) ?? []) follower(event);
    }
  }

  /** How many runs someone follows (tests). */
  get runCount(): number {
    return this.#byRun.size;
  }
}
