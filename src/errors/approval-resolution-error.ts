import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.approval_resolution';
const symbol = Symbol.for(marker);

/** Why a decision could not be recorded. */
export type ApprovalResolutionFailure = 'not_found' | 'already_decided' | 'expired' | 'missing_approver';

/** The failure with the facts its message names. */
export type ApprovalResolutionProblem =
  | { failure: 'not_found' | 'missing_approver' }
  /** `status` is the decision already recorded, `approver` who made it (null: nobody named). */
  | { failure: 'already_decided'; status: string; approver: string | null }
  /** Expired at `expiresAt` (epoch ms), and was denied for it. */
  | { failure: 'expired'; expiresAt: number };

function describe(approvalId: string, problem: ApprovalResolutionProblem): string {
  switch (problem.failure) {
    case 'not_found':
      return `no approval ${approvalId} exists`;
    case 'missing_approver':
      return `a decision on approval ${approvalId} must name the approver`;
    case 'already_decided':
      return `approval ${approvalId} was already decided: ${problem.status}${problem.approver === null ? '' : ` by ${problem.approver}`}`;
    case 'expired':
      return `approval ${approvalId} expired at ${new Date(problem.expiresAt).toISOString()} and was denied`;
  }
}

/**
 * A person's decision could not be recorded: the approval does not exist,
 * was already decided, has expired, or the decision names no approver.
 * Nothing was changed (an expired approval is marked denied).
 *
 * @example
 * try { broker.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' }) } catch (error) {
 *   if (ApprovalResolutionError.isInstance(error) && error.failure === 'already_decided') console.log(error.status);
 * }
 * throw new ApprovalResolutionError({ approvalId: 'a1', failure: 'already_decided', status: 'approved', approver: 'li.wei' });
 * // message: "approval a1 was already decided: approved by li.wei"
 */
export class ApprovalResolutionError extends ArbiterError {
  readonly code = 'approval_resolution' as const;
  readonly [symbol] = true;
  readonly approvalId: string;
  readonly failure: ApprovalResolutionFailure;
  /** The approval's status when it was already decided (`denied` once expired). */
  readonly status: string | undefined;

  constructor(options: { approvalId: string } & ApprovalResolutionProblem) {
    super(describe(options.approvalId, options));
    this.approvalId = options.approvalId;
    this.failure = options.failure;
    this.status =
      options.failure === 'already_decided' ? options.status : options.failure === 'expired' ? 'denied' : undefined;
  }

  static override isInstance(error: unknown): error is ApprovalResolutionError {
    return ArbiterError.hasMarker(error, marker);
  }
}
