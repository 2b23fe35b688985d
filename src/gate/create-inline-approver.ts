import { randomBytes } from 'node:crypto';
import type { ApprovalBroker, ApprovalRequest, ApprovalState } from './approval-broker.js';

/** What an inline approver answers: a bare decision, or one with a reason and the approver's name. */
export type InlineAnswer =
  | 'approve'
  | 'reject'
  | { readonly decision: 'approve' | 'reject'; readonly reason?: string; readonly approver?: string };

/**
 * An approval broker that asks right away and waits: a terminal prompt, a
 * chat button, a webhook. Default deny: a timeout, an `ask` that throws,
 * an answer that is neither approve nor reject, or a cancelled run all
 * leave the call unexecuted. Nothing is stored; for approvals that survive
 * a restart use `SqliteApprovalBroker`.
 *
 * @example
 * const approvals = createInlineApprover({
 *   ask: async (request) => ((await prompt(`${request.tool} ${JSON.stringify(request.arguments)}? [y/N] `)) === 'y' ? 'approve' : 'reject'),
 *   timeoutMs: 60_000,
 * });
 */
export function createInlineApprover({
  ask,
  timeoutMs = 5 * 60 * 1000,
  approver = 'inline',
}: {
  ask: (request: ApprovalRequest, options: { readonly signal: AbortSignal }) => Promise<InlineAnswer | undefined>;
  /** How long to wait for an answer. Default five minutes. */
  timeoutMs?: number;
  /** The name recorded when the answer names nobody. */
  approver?: string;
}): ApprovalBroker {
  return {
    decide: async (request, { signal, onRequired }): Promise<ApprovalState> => {
      const approvalId = `ap_${randomBytes(6).toString('hex')}`;
      const denied = (code: 'approval_timed_out' | 'approver_failed' | 'approval_aborted', reason: string) =>
        ({ status: 'denied', approvalId, code, reason }) as const;
      if (signal.aborted) return denied('approval_aborted', 'the run was cancelled');
      onRequired?.(approvalId);
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      const outcome = await new Promise<
        { kind: 'answer'; answer: unknown } | { kind: 'timeout' } | { kind: 'error' } | { kind: 'aborted' }
      >((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
        controller.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true });
        Promise.resolve()
          .then(() => ask(request, { signal: controller.signal }))
          .then(
            (answer) => resolve({ kind: 'answer', answer }),
            () => resolve({ kind: 'error' }),
          );
      });
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (outcome.kind !== 'answer') controller.abort();
      if (outcome.kind === 'timeout') return denied('approval_timed_out', `no answer within ${timeoutMs} ms`);
      if (outcome.kind === 'aborted') return denied('approval_aborted', 'the run was cancelled');
      if (outcome.kind === 'error') return denied('approver_failed', 'the approver could not be asked');
      const answer = readAnswer(outcome.answer);
      if (answer === undefined) return denied('approver_failed', 'the approver gave no usable answer');
      const by = answer.approver ?? approver;
      return answer.decision === 'approve'
        ? { status: 'approved', approvalId, approver: by }
        : { status: 'rejected', approvalId, approver: by, reason: answer.reason ?? '' };
    },
  };
}

function readAnswer(
  answer: unknown,
): { decision: 'approve' | 'reject'; reason?: string; approver?: string } | undefined {
  if (answer === 'approve' || answer === 'reject') return { decision: answer };
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { decision, reason, approver } = answer as Record<string, unknown>;
  if (decision !== 'approve' && decision !== 'reject') return undefined;
  return {
    decision,
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof approver === 'string' && approver.trim() !== '' ? { approver } : {}),
  };
}
