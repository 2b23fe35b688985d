import type { ToolCall } from '../core/chat-message.js';
import type { ToolErrorPayload } from '../core/tool-outcome.js';
import { approvalBinding } from '../gate/approval-binding.js';
import type { OriginalCall } from '../gate/audit-log.js';
import { auditToolCall } from '../gate/audit-tool-call.js';
import { bindToolCall } from '../loop/bind-tool-call.js';
import { parseToolCall } from '../loop/parse-tool-call.js';
import type { RunRuntime } from '../loop/run-runtime.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { type AdapterCallAnswer, type AdapterCallClaim, resultOfAnswer } from './adapter-calls.js';
import type { AdapterTexts } from './adapter-texts.js';
import type { ArbiterToolResult } from './gate-bridge.js';
import type { LoopApprovals } from './loop-approvals.js';

/**
 * Answers a call id its conversation used before, without running
 * anything: the recorded answer for the same tool and arguments (audited
 * `replayed:…`, naming the first call and the approver it ran under, with
 * `tool:proposed` and `tool:end` or `tool:error`), `call_id_reused` for
 * another tool or other arguments, `outcome_unknown` for a call that may
 * have acted without an answer (or that another request is running now).
 * A replay never reaches the repeated-call brake: it is no new call.
 *
 * @example
 * if (claim.status !== 'new') return answerCallAgain({ runtime, tools, approvals, texts, call, step, claim });
 */
export async function answerCallAgain({
  runtime,
  tools,
  approvals,
  texts,
  call,
  step,
  claim,
}: {
  runtime: RunRuntime;
  tools: ToolSet;
  /** The bridge's approvals: the replay is audited under the approval the call first ran with. */
  approvals: LoopApprovals;
  texts: AdapterTexts;
  /** The call as the loop sent it again. */
  call: ToolCall;
  step: number;
  claim: Exclude<AdapterCallClaim, { status: 'new' }>;
}): Promise<ArbiterToolResult> {
  const { id: toolCallId, function: proposed } = call;
  const tool = proposed.name;
  const startedAt = performance.now();
  runtime.emitter.emit({ type: 'tool:proposed', step, toolCallId, tool, arguments: proposed.arguments });
  if (claim.status === 'answered') {
    const { answer } = claim;
    await auditReplay({ runtime, tools, approvals, call, step, answer, original: claim.original });
    const durationMs = performance.now() - startedAt;
    if (answer.status === 'ok') runtime.emitter.emit({ type: 'tool:end', step, toolCallId, tool, durationMs });
    else {
      const { code, retryable } = answer.value as ToolErrorPayload;
      runtime.emitter.emit({
        type: 'tool:error',
        step,
        toolCallId,
        tool,
        stage: 'execution',
        code,
        retryable,
        durationMs,
      });
    }
    return resultOfAnswer(answer);
  }
  const code = claim.status === 'id_reused' ? 'call_id_reused' : 'outcome_unknown';
  const text =
    claim.status === 'id_reused'
      ? texts.callIdReused({ tool })
      : claim.running
        ? texts.callRunning({ tool })
        : runtime.gateTexts.outcomeUnknown({ tool });
  const durationMs = performance.now() - startedAt;
  runtime.emitter.emit({
    type: 'tool:error',
    step,
    toolCallId,
    tool,
    stage: 'execution',
    code,
    retryable: false,
    durationMs,
  });
  return { status: 'error', error: { code, retryable: false, message: text }, text };
}

/** The replay's audit row, as a replay of a tool's own key is audited: `replayed:…`, naming the first call. */
async function auditReplay({
  runtime,
  tools,
  approvals,
  call,
  step,
  answer,
  original,
}: {
  runtime: RunRuntime;
  tools: ToolSet;
  approvals: LoopApprovals;
  call: ToolCall;
  step: number;
  answer: AdapterCallAnswer;
  original: OriginalCall;
}): Promise<void> {
  const checked = parseToolCall(runtime, tools, call);
  // A call that never passed validation never reached the gate, and was not audited the first time either.
  if (!checked.ok) return;
  const tool = call.function.name;
  const head = { step, toolCallId: call.id, toolName: tool, startedAt: performance.now() };
  const gated = bindToolCall(runtime, head, checked.tool, checked.args);
  try {
    const key = { runId: runtime.runId, toolCallId: call.id, tool, argumentsHash: approvalBinding(gated) };
    const approval = await approvals.find(key);
    if (approval?.status === 'approved') {
      gated.decision = 'approved';
      gated.approver = approval.approver;
    }
    const code = answer.status === 'ok' ? 'ok' : (answer.value as ToolErrorPayload).code;
    await auditToolCall(runtime, gated, `replayed:${code}`, original);
  } finally {
    gated.releaseHistory();
  }
}
