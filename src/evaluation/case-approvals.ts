import { type ApprovalBroker, denyAllApprovals } from '../gate/approval-broker.js';

/**
 * How the person behind the gate answers in a case: `none` — nobody can
 * approve, so every approval is denied (arbiter's default); `approve` and
 * `reject` — answered at once; `hold` — nobody has answered yet, so the run
 * stops with `awaiting_approval`.
 */
export type CaseApprover = 'none' | 'approve' | 'reject' | 'hold';

/**
 * The approval broker a case asks for.
 *
 * @example
 * await runAgent({ model, tools, messages, gate, approvals: caseApprovals('hold') });
 */
export function caseApprovals(approver: CaseApprover = 'none'): ApprovalBroker {
  switch (approver) {
    case 'none':
      return denyAllApprovals;
    case 'approve':
      return { decide: async () => ({ status: 'approved', approvalId: 'eval', approver: 'evaluator' }) };
    case 'reject':
      return {
        decide: async () => ({
          status: 'rejected',
          approvalId: 'eval',
          approver: 'evaluator',
          reason: 'The evaluator rejected this request.',
        }),
      };
    case 'hold':
      return {
        decide: async (_request, { onRequired }) => {
          onRequired?.('eval');
          return { status: 'pending', approvalId: 'eval' };
        },
      };
  }
}
