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
  const fingerprint = call.tool.definition.fingerprint;
  return audit.append({
    at: Date.now(),
    sessionId: runtime.sessionId,
    runId: runtime.runId,
    step: call.step,
    toolCallId: call.toolCallId,
    tool: call.toolName,
    sideEffect: call.tool.definition.sideEffect,
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
