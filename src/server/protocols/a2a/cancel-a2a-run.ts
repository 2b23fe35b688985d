import type { Principal } from '../../../core/principal.js';
import type { ServerDependencies } from '../../server-env.js';
import type { A2aTaskRecord } from './read-a2a-task.js';

/**
 * Cancels the run behind an A2A task: a run executing here is aborted (it
 * stops with `aborted` and its terminal event); a run waiting for a person
 * has its pending approvals rejected by the canceling caller (so no later
 * decision resumes it and nothing it asked for runs) and is recorded
 * `aborted`. Returns whether the run was waiting (no terminal event follows).
 *
 * @example
 * const waiting = await cancelA2aRun(dependencies, { found, principal });
 */
export async function cancelA2aRun(
  dependencies: Pick<ServerDependencies, 'manager' | 'approvals' | 'runs'>,
  { found, principal }: { found: A2aTaskRecord; principal: Principal },
): Promise<boolean> {
  const { run, session } = found;
  if (run === undefined || run.status === 'aborted') return false;
  if (dependencies.manager.abort({ sessionId: session.id })) return false;
  if (run.status !== 'awaiting_approval') return false;
  const pending = await dependencies.approvals.listApprovals({ status: 'pending', runId: run.runId });
  for (const approval of pending) {
    await dependencies.approvals.resolveApproval({
      approvalId: approval.approvalId,
      decision: 'reject',
      approver: principal.userId,
      reason: 'the A2A task was canceled',
    });
  }
  dependencies.runs.setStatus(run.runId, 'aborted');
  return true;
}
