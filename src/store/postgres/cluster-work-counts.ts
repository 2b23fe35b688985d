import { WorkCounts } from './work-counts.js';

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
export class ClusterWorkCounts extends WorkCounts<ClusterWork> {
  constructor() {
    super({
      name: 'arbiter_cluster_work_total',
      help: 'What this node did for the cluster: notifications and what came of them, event table reads, lease keeper passes.',
    });
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
