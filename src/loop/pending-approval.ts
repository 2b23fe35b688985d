/**
 * A call a run stopped on because it waits for a person: what the approver
 * is asked about, carried on the run's result (`RunResult.pendingApprovals`),
 * so the caller decides with `resumeAfterApproval` without listening for
 * `approval:required`. Who may decide is the application's rule (the
 * server's: the `approver` role, never the session's owner), not the run's.
 *
 * @example
 * for (const pending of result.pendingApprovals) {
 *   console.log(`${pending.approvalId}: ${pending.tool} ${JSON.stringify(pending.arguments)} (${pending.reason})`);
 * }
 */
export interface PendingApproval {
  /** What `resumeAfterApproval` (or `approvals.resolveApproval`) decides. */
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly tool: string;
  /** The validated arguments as the approver sees them: bound parameters filled, sensitive fields redacted. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The rule that asked for a person, e.g. `refund_50_yuan_or_more`. */
  readonly rule: string;
  /** Why, in a sentence for the approver. */
  readonly reason: string;
}
