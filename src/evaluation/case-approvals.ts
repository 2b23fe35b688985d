import { type ApprovalBroker, denyAllApprovals } from '../gate/approval-broker.js';
import { SqliteApprovalBroker } from '../store/sqlite/sqlite-approval-broker.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';

/**
 * How the person behind the gate answers in a case: `none` — nobody can
 * approve, so every approval is denied (arbiter's default); `approve` and
 * `reject` — answered at once; `hold` — nobody has answered yet, so the run
 * stops with `awaiting_approval`; `approve-expired` — a person approves,
 * but the run comes back to the call only after the grant expired;
 * `approve-then-rules-change` — a person approves, and the rules in force
 * change before the call runs. The last two go through a real (in-memory)
 * `SqliteApprovalBroker`, so they test its grant rules.
 */
export type CaseApprover = 'none' | 'approve' | 'reject' | 'hold' | 'approve-expired' | 'approve-then-rules-change';

const grantTtlMs = 60 * 60 * 1000;

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
    case 'approve-expired':
    case 'approve-then-rules-change':
      return grantBroker(approver);
  }
}

/** A person approves at once; the grant is then used late, or under other rules, by a real broker. */
function grantBroker(approver: 'approve-expired' | 'approve-then-rules-change'): ApprovalBroker {
  const clock = { now: Date.now() };
  return {
    decide: async (request, options) => {
      const store = openSqliteStore({ path: ':memory:' });
      try {
        const broker = new SqliteApprovalBroker({ database: store.database, grantTtlMs, now: () => clock.now });
        const asked = await broker.decide(request, options);
        if (asked.status !== 'pending') return asked;
        broker.resolveApproval({ approvalId: asked.approvalId, decision: 'approve', approver: 'evaluator' });
        if (approver === 'approve-expired') clock.now += 2 * grantTtlMs;
        const policyVersion = approver === 'approve-then-rules-change' ? 'rules-changed' : request.policyVersion;
        return await broker.decide({ ...request, ...(policyVersion === undefined ? {} : { policyVersion }) }, options);
      } finally {
        store.close();
      }
    },
  };
}
