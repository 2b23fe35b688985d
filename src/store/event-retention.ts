/**
 * The `DELETE` of a retention prune of `run_events`, for both dialects:
 * whole runs whose newest event is older than `cutoff` (a placeholder),
 * except a run that is still going — a session's active run, or a run the
 * server still has running or awaiting approval (its events are what a
 * reader replays when it reconnects, however old). A database migrated
 * without the session or server tables (a custom migration list) leaves
 * that part out.
 *
 * @example
 * database.prepare(pruneRunEventsSql('?')).run(before);
 */
export function pruneRunEventsSql(
  cutoff: string,
  { sessions = true, serverRuns = true }: { sessions?: boolean; serverRuns?: boolean } = {},
): string {
  const going = [
    ...(sessions ? ['SELECT active_run_id FROM sessions WHERE active_run_id IS NOT NULL'] : []),
    ...(serverRuns ? ["SELECT run_id FROM server_runs WHERE status IN ('running', 'awaiting_approval')"] : []),
  ];
  return `DELETE FROM run_events WHERE run_id IN (
     SELECT run_id FROM run_events GROUP BY run_id HAVING max(at) < ${cutoff}
     ${going.map((select) => `EXCEPT ${select}`).join(' ')})`;
}
