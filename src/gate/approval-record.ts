import type { ApprovalRequest } from './approval-broker.js';

/** Where an approval stands. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'denied';

/**
 * One approval as stored: the request, and the decision once there is one.
 * The rules over it (when it may be decided, when its grant applies and
 * expires) are in `approval-rules.ts`.
 *
 * @example
 * const pending: readonly ApprovalRecord[] = broker.listApprovals({ status: 'pending' });
 */
export interface ApprovalRecord extends ApprovalRequest {
  readonly approvalId: string;
  readonly status: ApprovalStatus;
  readonly approver: string | undefined;
  readonly decisionReason: string | undefined;
  readonly createdAt: number;
  readonly decidedAt: number | undefined;
  /** Until when a pending approval waits for a person (later, it is denied as timed out). */
  readonly expiresAt: number;
  /** When the approved call was let through; an approval lets a call through once. */
  readonly consumedAt: number | undefined;
  /** An approval given: until when it may be used (later, the call is refused and a person must be asked again). */
  readonly grantExpiresAt: number | undefined;
}
