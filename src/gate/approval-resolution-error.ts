import { ArbiterError } from '../errors/arbiter-error.js';

const marker = Symbol.for('arbiter.error.approval_resolution');

/** Why a decision could not be recorded. */
export type ApprovalResolutionFailure = 'not_found' | 'already_decided' | 'expired' | 'missing_approver';

/**
 * A person's decision could not be recorded: the approval does not exist,
 * was already decided, has expired, or the decision names no approver.
 * Nothing was changed.
 *
 * @example
 * try { broker.resolveApproval({ approvalId, decision: 'approve', approver: 'li.wei' }) } catch (error) {
 *   if (ApprovalResolutionError.isInstance(error) && error.failure === 'already_decided') console.log(error.status);
 * }
 */
export class ApprovalResolutionError extends ArbiterError {
  readonly code = 'approval_resolution' as const;
  readonly [marker] = true;
  readonly approvalId: string;
  readonly failure: ApprovalResolutionFailure;
  /** The approval's status when it was already decided. */
  readonly status: string | undefined;

  constructor({
    approvalId,
    failure,
    status,
    message,
  }: {
    approvalId: string;
    failure: ApprovalResolutionFailure;
    status?: string;
    message: string;
  }) {
    super(message);
    this.approvalId = approvalId;
    this.failure = failure;
    this.status = status;
  }

  static override isInstance(value: unknown): value is ApprovalResolutionError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
