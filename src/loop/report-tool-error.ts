import type { ToolErrorPayload } from '../core/tool-outcome.js';
import type { ToolErrorStage } from '../events/agent-event.js';
import type { ToolCallHead } from '../gate/gated-call.js';
import type { RunRuntime } from './run-runtime.js';
import type { ToolCallReport } from './tool-call-report.js';

function errorReport(
  runtime: RunRuntime,
  head: ToolCallHead,
  stage: ToolErrorStage,
  error: ToolErrorPayload,
  brake: 'repeated_call' | 'tool_failures' | undefined,
): ToolCallReport {
  const { toolCallId, toolName } = head;
  runtime.emitter.emit({
    type: 'tool:error',
    step: head.step,
    toolCallId,
    tool: toolName,
    stage,
    code: error.code,
    retryable: error.retryable,
    durationMs: performance.now() - head.startedAt,
  });
  const content = runtime.describeError(error, runtime.locale);
  return brake === undefined
    ? { kind: 'done', toolCallId, tool: toolName, outcome: { ok: false, error }, content }
    : { kind: 'done', toolCallId, tool: toolName, outcome: { ok: false, error }, content, brake };
}

/**
 * Answers a call that failed in a way the model caused (invalid arguments,
 * a rule's refusal, the tool's own error): a `tool:error` event, the error
 * worded by the run's `describeError`, and one more failure of the tool in
 * a row, which stops the run (`tool_failures`) once there are too many.
 *
 * @example
 * if (!checked.ok) return reportFailure(runtime, head, 'validation', checked.error);
 */
export function reportFailure(
  runtime: RunRuntime,
  head: ToolCallHead,
  stage: ToolErrorStage,
  error: ToolErrorPayload,
): ToolCallReport {
  const tripped = runtime.brakes.noteOutcome(head.toolName, false) ? 'tool_failures' : undefined;
  return errorReport(runtime, head, stage, error, tripped);
}

/**
 * Answers a call that was refused for a reason outside the model's call (a
 * person rejected it, no approval came, its idempotency key was used
 * before): like `reportFailure`, but it does not count as the tool failing.
 *
 * @example
 * if (approval.status === 'refused') return reportRefusal(runtime, call, approval.stage, approval.error);
 */
export function reportRefusal(
  runtime: RunRuntime,
  head: ToolCallHead,
  stage: ToolErrorStage,
  error: ToolErrorPayload,
): ToolCallReport {
  return errorReport(runtime, head, stage, error, undefined);
}

/**
 * Answers the same call asked for once too often: refused (one more failure
 * of the tool in a row), and the run stops (`repeated_call`) after the model
 * has answered from what it has.
 *
 * @example
 * if (times > runtime.brakes.maxIdenticalCalls) return reportRepeatedCall(runtime, head, times);
 */
export function reportRepeatedCall(runtime: RunRuntime, head: ToolCallHead, times: number): ToolCallReport {
  // It counts as a failure in a row too: the brake it trips wins over `tool_failures`.
  runtime.brakes.noteOutcome(head.toolName, false);
  const message = runtime.texts.repeated({ tool: head.toolName, times: times - 1 });
  return errorReport(runtime, head, 'brake', { code: 'repeated_call', retryable: false, message }, 'repeated_call');
}
