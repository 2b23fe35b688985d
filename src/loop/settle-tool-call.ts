import { truncateToolResult } from '../context/truncate-tool-result.js';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { auditToolCall } from '../gate/audit-tool-call.js';
import type { KeyClaim } from '../gate/claim-idempotency-key.js';
import type { GatedCall } from '../gate/gated-call.js';
import type { ToolExecution } from './execute-tool-call.js';
import { reportFailure } from './report-tool-error.js';
import type { RunRuntime } from './run-runtime.js';
import type { ToolCallReport } from './tool-call-report.js';

/**
 * Settles an executed call: its idempotency claim (completed with the
 * outcome; released when the tool refused and changed nothing; abandoned,
 * outcome unknown, when it may have acted), its audit entry, the brakes,
 * the closing event, and the report. Throws `InfrastructureError` for an
 * infrastructure failure, after all of that. A call that succeeded without
 * a claim, whose audit entry was taken without waiting, is settled on the
 * spot (no promise, no turn of the microtask queue).
 *
 * @example
 * const executing = executeToolCall(runtime, call);
 * return settleToolCall(runtime, call, key, executing instanceof Promise ? await executing : executing);
 */
export function settleToolCall(
  runtime: RunRuntime,
  call: GatedCall,
  key: KeyClaim,
  execution: ToolExecution,
): ToolCallReport | Promise<ToolCallReport> {
  if (!execution.ok || key?.status === 'claimed') return settleAfterClaim(runtime, call, key, execution);
  const auditing = auditToolCall(runtime, call, 'ok');
  if (auditing instanceof Promise) return auditing.then(() => settleSuccess(runtime, call, execution));
  return settleSuccess(runtime, call, execution);
}

async function settleAfterClaim(
  runtime: RunRuntime,
  call: GatedCall,
  key: KeyClaim,
  execution: ToolExecution,
): Promise<ToolCallReport> {
  const claimed = key?.status === 'claimed' ? key : undefined;
  const { toolCallId, toolName } = call;
  if (execution.ok) {
    await claimed?.complete(execution);
    await auditToolCall(runtime, call, 'ok');
    return settleSuccess(runtime, call, execution);
  }
  if (execution.failure === 'model') {
    // The tool refused and changed nothing: the key is free for a corrected or later call.
    await claimed?.release();
    await auditToolCall(runtime, call, execution.error.code);
    return reportFailure(runtime, call, 'execution', execution.error);
  }
  // The tool may have acted before it gave up: the key stays claimed, its outcome unknown.
  await claimed?.abandon();
  const aborted = execution.failure === 'aborted';
  await auditToolCall(runtime, call, aborted ? 'aborted' : 'infrastructure_failure');
  // Closes the `tool:start` of a call that ended without an answer for the model.
  runtime.emitter.emit({
    type: 'tool:error',
    step: call.step,
    toolCallId,
    tool: toolName,
    stage: 'execution',
    code: aborted ? 'outcome_unknown' : execution.code,
    retryable: false,
    durationMs: performance.now() - call.startedAt,
  });
  if (aborted) return { kind: 'aborted', toolCallId, tool: toolName, started: true };
  throw new InfrastructureError({
    message: `tool "${toolName}" failed unexpectedly`,
    toolName,
    cause: execution.cause,
  });
}

/** The brakes, `tool:end` and the report of a call that succeeded and was audited. */
function settleSuccess(
  runtime: RunRuntime,
  call: GatedCall,
  execution: Extract<ToolExecution, { ok: true }>,
): ToolCallReport {
  const { toolCallId, toolName } = call;
  runtime.brakes.noteOutcome(toolName, true);
  runtime.emitter.emitDraft({
    runId: '',
    seq: 0,
    at: 0,
    type: 'tool:end',
    step: call.step,
    toolCallId,
    tool: toolName,
    durationMs: performance.now() - call.startedAt,
  });
  return { kind: 'done', toolCallId, tool: toolName, outcome: execution, content: serialiseResult(execution.data) };
}

/**
 * Results always reach the model as JSON, so data is never confused with an error sentence.
 *
 * @example
 * serialiseResult({ order_id: 'SO20260901', status: 'shipped' }); // '{"order_id":"SO20260901","status":"shipped"}'
 */
export function serialiseResult(data: unknown): string {
  return truncateToolResult(JSON.stringify(data ?? null));
}
