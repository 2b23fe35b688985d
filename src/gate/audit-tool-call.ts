import type { OriginalCall } from './audit-log.js';
import type { GatedCall, GateRuntime } from './gated-call.js';

/**
 * Appends the call's audit entry: who made it, with what (hashed and
 * redacted), how the gate decided (`call.decision`, `rule`, `approver`) and
 * what came of it. Every call that reached the gate is audited exactly once
 * with how it ended, refused or run; an egress call a person was asked
 * about has one row more, `awaiting_approval`, written when the person is
 * asked.
 *
 * @example
 * await auditToolCall(runtime, call, 'not_run');
 * await auditToolCall(runtime, call, 'replayed:ok', claim.original);
 */
export function auditToolCall(
  runtime: GateRuntime,
  call: GatedCall,
  /** `ok`, the tool's error code, `not_run`, `awaiting_approval`, `replayed:…`, `outcome_unknown`, … (see `AuditEntry.outcome`). */
  outcome: string,
  /** The call that executed first under the idempotency key, for a replay or a refused claim. */
  replayOf?: OriginalCall,
): Promise<void> | void {
  const { audit, principal } = runtime;
  if (audit === undefined) return;
  const { definition } = call.tool;
  const fingerprint = definition.fingerprint;
  const at = Date.now();
  // The usual call (a principal, no replay, no pinned definition) as one literal: the spreads below make a
  // temporary object each and copy it in, for the same entry with the same keys in the same order.
  if (principal !== undefined && replayOf === undefined && fingerprint === undefined) {
    return audit.append({
      at,
      sessionId: runtime.sessionId,
      runId: runtime.runId,
      step: call.step,
      toolCallId: call.toolCallId,
      tool: call.toolName,
      sideEffect: definition.sideEffect,
      argumentsHash: call.argumentsHash,
      arguments: call.shownArguments,
      decision: call.decision,
      rule: call.rule,
      approver: call.approver,
      tenantId: principal.tenantId,
      userId: principal.userId,
      outcome,
      durationMs: performance.now() - call.startedAt,
    });
  }
  return audit.append({
    at,
    sessionId: runtime.sessionId,
    runId: runtime.runId,
    step: call.step,
    toolCallId: call.toolCallId,
    tool: call.toolName,
    sideEffect: definition.sideEffect,
    argumentsHash: call.argumentsHash,
    arguments: call.shownArguments,
    decision: call.decision,
    rule: call.rule,
    approver: call.approver,
    ...(principal === undefined ? {} : { tenantId: principal.tenantId, userId: principal.userId }),
    ...(replayOf === undefined ? {} : { replayOf }),
    ...(fingerprint === undefined ? {} : { toolFingerprint: fingerprint }),
    outcome,
    durationMs: performance.now() - call.startedAt,
  });
}
