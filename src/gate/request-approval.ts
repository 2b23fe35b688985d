import type { ToolErrorPayload } from '../core/tool-outcome.js';
import type { ToolErrorStage } from '../events/agent-event.js';
import { approvalBinding } from './approval-binding.js';
import { auditToolCall } from './audit-tool-call.js';
import type { GatedCall, GateRuntime } from './gated-call.js';
import type { GateDecision } from './tool-gate.js';

/** Where a call that needs a person stands, normalised to one shape. */
export type ApprovalStep =
  /** A person approved: `call.decision` is `approved` and `call.approver` names them. */
  | { readonly status: 'approved' }
  /** Nobody has decided yet: nothing ran, the run stops with `awaiting_approval`. */
  | { readonly status: 'pending'; readonly approvalId: string }
  /** Rejected, denied (timeout, no approver, arguments changed …) or already used: audited, never run. */
  | { readonly status: 'refused'; readonly stage: ToolErrorStage; readonly error: ToolErrorPayload };

const approved: ApprovalStep = { status: 'approved' };

/**
 * Asks the run's approval broker about a call the gate holds for a person.
 * Precedence: the broker's answer decides; anything but an approval leaves
 * the call unexecuted (default deny). `approval:required` goes out when
 * the broker says a person is being asked (`onRequired`, once per
 * approval), before it waits, and again from a resumed run that stops on
 * an approval its event log never announced; `approval:resolved` goes out with any decision. When a
 * person is asked about an egress call (a mail, a post), it is audited at
 * once as `awaiting_approval` (decision `denied`: not let through yet, with
 * the rule that holds it), so an auditor sees a held mail while it waits. A refusal is audited here
 * with its rule; an approval sets `call.decision` and `call.approver` for
 * the audit that follows the execution.
 *
 * @example
 * const approval = await requestApproval(runtime, call, verdict);
 * if (approval.status === 'pending') return { kind: 'pending_approval', toolCallId, tool, approvalId: approval.approvalId };
 */
export async function requestApproval(
  runtime: GateRuntime,
  call: GatedCall,
  verdict: Extract<GateDecision, { decision: 'require_approval' }>,
): Promise<ApprovalStep> {
  const { emitter, gateTexts: texts } = runtime;
  const { step, toolCallId, toolName } = call;
  call.rule = verdict.rule;
  let announced = false;
  let held: Promise<void> | undefined;
  const announce = (approvalId: string, details?: { readonly expiresAt?: number }) => {
    announced = true;
    if (call.tool.definition.egress === true) {
      // A held mail shows in the audit while it waits, not only once a person decided: not let through (yet), and why.
      call.decision = 'denied';
      held = Promise.resolve(auditToolCall(runtime, call, 'awaiting_approval'));
      held.catch(() => {});
    }
    emitter.emit({
      type: 'approval:required',
      step,
      toolCallId,
      approvalId,
      tool: toolName,
      arguments: call.shownArguments,
      rule: verdict.rule,
      reason: verdict.reason,
      ...(details?.expiresAt === undefined ? {} : { expiresAt: details.expiresAt }),
    });
  };
  const fingerprint = call.tool.definition.fingerprint;
  const state = await runtime.approvals.decide(
    {
      runId: runtime.runId,
      sessionId: runtime.sessionId,
      step,
      toolCallId,
      tool: toolName,
      arguments: call.shownArguments,
      argumentsHash: approvalBinding(call),
      ...(fingerprint === undefined ? {} : { toolFingerprint: fingerprint }),
      rule: verdict.rule,
      reason: verdict.reason,
      ...(runtime.gate.policyVersion === undefined ? {} : { policyVersion: runtime.gate.policyVersion }),
    },
    { signal: runtime.signal, onRequired: announce },
  );
  if (state.status === 'pending') {
    // Asked before this run resumed, yet never announced: the process that asked died before writing the event.
    if (!announced && runtime.wasAnnounced?.(state.approvalId) === false) announce(state.approvalId);
    await held;
    return { status: 'pending', approvalId: state.approvalId };
  }
  await held;
  if (state.status === 'denied' && state.code === 'approval_used' && hasIdempotencyKey(runtime, call)) {
    // Let through before, with no recorded result (its process died): the call's idempotency key knows whether it
    // ran (its result is replayed), may be running (outcome unknown) or never started (it runs now, once).
    emitter.emit({
      type: 'approval:resolved',
      toolCallId,
      approvalId: state.approvalId,
      tool: toolName,
      decision: 'approved',
      approver: state.approver,
    });
    call.decision = 'approved';
    call.approver = state.approver;
    return approved;
  }
  emitter.emit({
    type: 'approval:resolved',
    toolCallId,
    approvalId: state.approvalId,
    tool: toolName,
    decision: state.status,
    approver: state.status === 'denied' ? undefined : state.approver,
  });
  if (state.status === 'approved') {
    call.decision = 'approved';
    call.approver = state.approver;
    return approved;
  }
  if (state.status === 'rejected') {
    call.decision = 'rejected';
    call.approver = state.approver;
    await auditToolCall(runtime, call, 'not_run');
    const message = texts.refused({
      tool: toolName,
      code: 'rejected_by_approver',
      message: texts.rejected({ reason: state.reason }),
    });
    return { status: 'refused', stage: 'gate', error: { code: 'rejected_by_approver', retryable: false, message } };
  }
  call.decision = 'denied';
  if (state.code === 'approval_used') {
    // This exact call was approved and let through before, yet has no recorded result: it may have run.
    await auditToolCall(runtime, call, 'outcome_unknown');
    const message = texts.outcomeUnknown({ tool: toolName });
    return { status: 'refused', stage: 'execution', error: { code: 'outcome_unknown', retryable: false, message } };
  }
  // Asked about under another definition of a pinned tool: the approval is void, whoever gave it.
  const code =
    state.code === 'arguments_changed' && fingerprint !== undefined
      ? 'tool_changed'
      : (state.code ?? 'approval_denied');
  await auditToolCall(runtime, call, 'not_run');
  const message = texts.refused({ tool: toolName, code, message: texts.approvalDenied({ code }) });
  return { status: 'refused', stage: 'gate', error: { code, retryable: false, message } };
}

function hasIdempotencyKey(runtime: GateRuntime, call: GatedCall): boolean {
  return (
    runtime.idempotency !== undefined && call.tool.definition.idempotencyKey?.(call.args, call.context) !== undefined
  );
}
