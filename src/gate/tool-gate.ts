import type { RegisteredTool } from '../tools/tool-registry.js';
import type { ToolContext } from '../tools/tool-types.js';

/** What the gate decides about one validated call, before it executes. */
export type GateDecision =
  /** Runs. `rule` names the rule that allowed an irreversible call automatically (`auto_approved`). */
  | { readonly decision: 'allow'; readonly rule?: string }
  /** Waits for a person (see `ApprovalBroker`). */
  | { readonly decision: 'require_approval'; readonly rule: string; readonly reason: string }
  /** Never runs; the model is told once. */
  | { readonly decision: 'deny'; readonly rule: string; readonly code: string; readonly message: string };

/**
 * Decides, in code, whether a validated call may run. Prompts govern intent;
 * the gate governs permission. `check` may be asynchronous: a rule that adds
 * up earlier calls reads `context.history`.
 *
 * @example
 * const gate: ToolGate = {
 *   check: ({ tool, args }) =>
 *     tool.definition.name === 'apply_refund' && Number(args.amount) > 500
 *       ? { decision: 'deny', rule: 'refund_hard_cap', code: 'over_hard_cap', message: 'Refunds above 500.00 cannot be made here.' }
 *       : { decision: 'allow' },
 * };
 */
export interface ToolGate {
  /**
   * The version of the rules this gate applies, e.g. a hash of its
   * configuration or a release id. Approvals are grants under the version
   * they were asked under: a changed version voids those not used yet.
   * Absent: approvals are not bound to a version.
   */
  readonly policyVersion?: string;
  check(request: {
    readonly tool: RegisteredTool;
    readonly args: Readonly<Record<string, unknown>>;
    readonly context: ToolContext;
  }): GateDecision | Promise<GateDecision>;
  /**
   * False when no call of `tool` can ever be held for a person by this
   * gate, whatever its arguments and history; absent or true: it may be.
   * Only a shortcut for a loop that asks ahead ("does this call need a
   * person?"): every call is still checked by `check` before it runs.
   */
  mayRequireApproval?(tool: RegisteredTool): boolean;
}

/** The gate that allows every validated call. */
export const allowAllGate: ToolGate = { check: () => ({ decision: 'allow' }), mayRequireApproval: () => false };
