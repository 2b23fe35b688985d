/** A call the gate will not let run without a person's decision. */
export interface ApprovalRequest {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly toolCallId: string;
  readonly tool: string;
  /** The validated arguments (bound parameters filled), as a person should read them. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** sha256 of the canonical JSON of `arguments`: an approval is bound to exactly these. */
  readonly argumentsHash: string;
  /** The rule that asked for approval, e.g. `refund_over_50`. */
  readonly rule: string;
  /** Why, in a sentence for the approver. */
  readonly reason: string;
}

/** Where an approval stands. `denied` covers timeouts, approver errors and no answer: default deny. */
export type ApprovalState =
  | { readonly status: 'pending'; readonly approvalId: string; readonly isNew: boolean }
  | { readonly status: 'approved'; readonly approvalId: string; readonly approver: string }
  | { readonly status: 'rejected'; readonly approvalId: string; readonly approver: string; readonly reason: string }
  | { readonly status: 'denied'; readonly approvalId: string; readonly reason: string };

/**
 * Decides approvals. `decide` is asked each time the loop reaches a call
 * that needs one: the first time it records a pending approval (or asks an
 * inline approver and waits); after a person answered, it returns the
 * decision — only for the same run, call and argument hash, and only once.
 *
 * @example
 * const state = await broker.decide(request, { signal });
 * if (state.status === 'pending') stopRun('awaiting_approval');
 */
export interface ApprovalBroker {
  decide(request: ApprovalRequest, options: { readonly signal: AbortSignal }): Promise<ApprovalState>;
}

/** Without a broker, nothing that needs approval runs. */
export const denyAllApprovals: ApprovalBroker = {
  decide: async () => ({ status: 'denied', approvalId: 'none', reason: 'no approver is configured' }),
};
