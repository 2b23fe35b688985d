/** A call the gate will not let run without a person's decision. */
export interface ApprovalRequest {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly toolCallId: string;
  readonly tool: string;
  /** The validated arguments (bound parameters filled, sensitive fields redacted), as a person should read them. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * sha256 of the canonical JSON of the full arguments: an approval is
   * bound to exactly these. For a tool with a definition fingerprint (a
   * third party's, see `ToolDefinition.fingerprint`) it is bound to the
   * definition too (see `approvalBinding`): another definition is another hash.
   */
  readonly argumentsHash: string;
  /** The tool definition's fingerprint when it has one, for the approver to see what was asked about. */
  readonly toolFingerprint?: string;
  /** The rule that asked for approval, e.g. `refund_50_yuan_or_more`. */
  readonly rule: string;
  /**
   * The version of the rules in force (`ToolGate.policyVersion`): an
   * approval is a grant under the rules it was asked under; used under
   * another version, it is void (`policy_changed`).
   */
  readonly policyVersion?: string;
  /** Why, in a sentence for the approver. */
  readonly reason: string;
}

/**
 * Why no approval came. Every one of them means the call does not run:
 * arbiter denies by default.
 */
export type ApprovalDeniedCode =
  /** Denied, no more specific reason known. */
  | 'approval_denied'
  /** No broker can ask anyone. */
  | 'no_approver'
  /** Nobody answered before the approval expired or the inline approver's time ran out. */
  | 'approval_timed_out'
  /** The approver could not be asked (it threw), or gave no usable answer. */
  | 'approver_failed'
  /** The approval was already used once for this call. */
  | 'approval_used'
  /** The call's arguments differ from the ones the person saw. */
  | 'arguments_changed'
  /** The tool was redefined (its fingerprint changed) since the person was asked: the approval is void. */
  | 'tool_changed'
  /** The run was cancelled while waiting. */
  | 'approval_aborted'
  /** The approval was given, but not used before its grant expired: a person must be asked again. */
  | 'grant_expired'
  /** The rules in force changed since the person was asked: the approval is void under the new ones. */
  | 'policy_changed';

/** Where an approval stands. `denied` covers timeouts, approver errors and no answer: default deny. */
export type ApprovalState =
  /** Nobody has decided yet. Whether a person was just asked is told through `onRequired`, not here. */
  | { readonly status: 'pending'; readonly approvalId: string }
  | { readonly status: 'approved'; readonly approvalId: string; readonly approver: string }
  | { readonly status: 'rejected'; readonly approvalId: string; readonly approver: string; readonly reason: string }
  | {
      readonly status: 'denied';
      readonly approvalId: string;
      /** Why, as data; the model gets a text for it. Default `approval_denied`. */
      readonly code?: ApprovalDeniedCode;
      /** With `approval_used`: who approved the call the time it was let through. */
      readonly approver?: string;
      /** For the operator, in English. */
      readonly reason: string;
    };

export interface DecideOptions {
  readonly signal: AbortSignal;
  /**
   * The one signal that a person is being asked: called exactly once per
   * approval, when it is first requested (a pending record was created, or
   * an inline approver is about to be asked), before the broker waits or
   * returns, so the runtime announces `approval:required` once. A broker
   * that returns `pending` for a new approval must call it first.
   */
  readonly onRequired?: (approvalId: string, details?: { readonly expiresAt?: number }) => void;
}

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
  decide(request: ApprovalRequest, options: DecideOptions): Promise<ApprovalState>;
}

/**
 * Without a broker, nothing that needs approval runs.
 *
 * @example
 * await runAgent({ model, tools, messages, approvals: denyAllApprovals });
 */
export const denyAllApprovals: ApprovalBroker = {
  decide: async () => ({
    status: 'denied',
    approvalId: 'none',
    code: 'no_approver',
    reason: 'no approver is configured',
  }),
};
