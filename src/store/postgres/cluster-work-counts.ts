/**
 * What one node did for the cluster, beyond the transactions it committed
 * (`TransactionCounts`): notifications received and what came of each,
 * reads of the event table, passes of its lease keeper. Counted, never
 * timed, so a bench can tell from them alone what a second and third node
 * add to a session. Read by `GET /metrics` as `arbiter_cluster_work_total`.
 *
 * @example
 * const counts = new ClusterWorkCounts();
 * counts.add('notification run_events not followed');
 * counts.prometheus(); // ['# HELP …', '# TYPE …', 'arbiter_cluster_work_total{work="notification run_events not followed"} 1']
 */
export class ClusterWorkCounts {
  readonly #counts = new Map<ClusterWork, number>();

  /** Counts `times` more of `work` (one by default). */
  add(work: ClusterWork, times = 1): void {
    this.#counts.set(work, (this.#counts.get(work) ?? 0) + times);
  }

  /** Every kind of work so far, with its count. */
  entries(): [work: ClusterWork, count: number][] {
    return [...this.#counts.entries()];
  }

  /** The counts as Prometheus counter lines, with their HELP and TYPE. */
  prometheus(): string[] {
    if (this.#counts.size === 0) return [];
    return [
      '# HELP arbiter_cluster_work_total What this node did for the cluster: notifications and what came of them, event table reads, lease keeper passes.',
      '# TYPE arbiter_cluster_work_total counter',
      ...[...this.#counts.entries()]
        .sort(([left], [right]) => left.localeCompare(right))
        .map(([work, count]) => `arbiter_cluster_work_total{work="${work}"} ${count}`),
    ];
  }
}

/**
 * The kinds of work counted:
 * - `notification run_events …`: a run's batch was written somewhere; `own`
 *   (this node wrote it: its followers had it already), `followed` (a
 *   follower here reads the table), `not followed` (nobody here follows the
 *   run: nothing done);
 * - `notification runs`: a run was freed somewhere (a claim pass follows);
 * - `event read …`: one read of `run_events` by a follower, `backlog` (a
 *   stream opened), `woken` (after a notification, a hole, a retry, a poll);
 * - `claim pass`, `adopt pass`, `lease renewal`, `stream renewal`: the
 *   lease keeper's statements, each one round trip.
 */
export type ClusterWork =
  | 'notification run_events own'
  | 'notification run_events followed'
  | 'notification run_events not followed'
  | 'notification runs'
  | 'event read backlog'
  | 'event read woken'
  | 'claim pass'
  | 'adopt pass'
  | 'lease renewal'
  | 'stream renewal';
