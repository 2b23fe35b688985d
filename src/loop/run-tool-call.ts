import type { ToolCall } from '../core/chat-message.js';
import { checkGate } from '../gate/check-gate.js';
import { claimIdempotencyKey, type KeyClaim } from '../gate/claim-idempotency-key.js';
import type { GatedCall, ToolCallHead } from '../gate/gated-call.js';
import { refuseDeniedCall } from '../gate/refuse-denied-call.js';
import { requestApproval } from '../gate/request-approval.js';
import type { GateDecision } from '../gate/tool-gate.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { canonicalJson } from '../util/canonical-json.js';
import { isRecord } from '../util/is-record.js';
import { bindToolCall } from './bind-tool-call.js';
import { durableStep } from './durable-step.js';
import { executeToolCall } from './execute-tool-call.js';
import { parseToolCall } from './parse-tool-call.js';
import { reportFailure, reportRefusal, reportRepeatedCall } from './report-tool-error.js';
import type { RunRuntime } from './run-runtime.js';
import { serialiseResult, settleToolCall } from './settle-tool-call.js';
import type { ToolCallMode, ToolCallReport } from './tool-call-report.js';

/**
 * The tool runner: every tool call passes through here and only here, as a
 * pipeline of steps. Parse and validate (all issues at once), the
 * repeated-call brake, bind the principal's parameters, gate (tier,
 * argument rules with the call history), approval, claim the idempotency
 * key (scoped by tenant and principal), execute under a time limit, settle
 * (claim, audit, brakes). Rejects with `InfrastructureError` only for
 * failures the model cannot fix (never throws); everything the model can
 * act on comes back as a report. A call whose every step answers
 * synchronously (see `gateAndRun`) is reported synchronously: no promise
 * on its path.
 *
 * @example
 * const running = runToolCall(runtime, tools, call, step, 'run');
 * const report = running instanceof Promise ? await running : running;
 */
export function runToolCall(
  runtime: RunRuntime,
  tools: ToolSet,
  call: ToolCall,
  step: number,
  mode: ToolCallMode,
): ToolCallReport | Promise<ToolCallReport> {
  try {
    return startToolCall(runtime, tools, call, step, mode);
  } catch (error) {
    // A failure reaches the caller as a rejection, as from an async function.
    return Promise.reject(error);
  }
}

function startToolCall(
  runtime: RunRuntime,
  tools: ToolSet,
  call: ToolCall,
  step: number,
  mode: ToolCallMode,
): ToolCallReport | Promise<ToolCallReport> {
  const head: ToolCallHead = { step, toolCallId: call.id, toolName: call.function.name, startedAt: performance.now() };
  const { toolCallId, toolName } = head;
  runtime.emitter.emitDraft({
    runId: '',
    seq: 0,
    at: 0,
    type: 'tool:proposed',
    step,
    toolCallId,
    tool: toolName,
    arguments: call.function.arguments,
  });
  const checked = parseToolCall(runtime, tools, call);
  if (!checked.ok) {
    // A tool routing did not send is no mistake of the model's: it does not count as the tool failing.
    if (checked.error.code === 'tool_not_sent') return reportRefusal(runtime, head, 'validation', checked.error);
    return reportFailure(runtime, head, 'validation', checked.error);
  }
  // Serialised once: the repeated-call brake counts this text, and the binding hashes it when nothing is bound.
  const canonicalArguments = canonicalJson(checked.args);
  const times = runtime.brakes.noteCall(toolName, canonicalArguments);
  if (times > runtime.brakes.maxIdenticalCalls) return reportRepeatedCall(runtime, head, times);
  const gated = bindToolCall(runtime, head, checked.tool, checked.args, canonicalArguments);
  const { steps } = runtime;
  let running: ToolCallReport | Promise<ToolCallReport>;
  try {
    running =
      steps === undefined
        ? gateAndRun(runtime, gated, mode)
        : durableStep({
            runtime,
            steps,
            name: `tool:${toolCallId}`,
            tool: toolName,
            run: async () => gateAndRun(runtime, gated, mode),
          });
  } catch (error) {
    gated.releaseHistory();
    throw error;
  }
  // Once the call is decided and audited, the principal's next history-reading call may count it.
  if (!(running instanceof Promise)) {
    gated.releaseHistory();
    return running;
  }
  return running.then(
    (report) => {
      gated.releaseHistory();
      return report;
    },
    (error: unknown) => {
      gated.releaseHistory();
      throw error;
    },
  );
}

/**
 * Gate, approval, claim, execution and settlement of a bound call. A call
 * whose every step answers synchronously (a gate that reads no history, no
 * idempotency key, a tool that answers at once, an audit that waits for
 * nothing) is answered synchronously: no promise on its path.
 */
function gateAndRun(
  runtime: RunRuntime,
  call: GatedCall,
  mode: ToolCallMode,
): ToolCallReport | Promise<ToolCallReport> {
  const checking = checkGate(runtime, call);
  if (checking instanceof Promise) return checking.then((verdict) => decide(runtime, call, mode, verdict));
  return decide(runtime, call, mode, checking);
}

function decide(
  runtime: RunRuntime,
  call: GatedCall,
  mode: ToolCallMode,
  verdict: GateDecision,
): ToolCallReport | Promise<ToolCallReport> {
  // Only a call let through automatically keeps the principal's history lock until it is audited.
  if (verdict.decision !== 'allow' || mode === 'check_only') call.releaseHistory();
  if (verdict.decision === 'deny') return refuse(runtime, call, verdict);
  if (verdict.decision === 'require_approval') return approveAndRun(runtime, call, verdict);
  if (mode === 'check_only') return { kind: 'held', toolCallId: call.toolCallId, tool: call.toolName };
  call.rule = verdict.rule;
  if (verdict.rule !== undefined) call.decision = 'auto_approved';
  return runAllowed(runtime, call);
}

async function refuse(
  runtime: RunRuntime,
  call: GatedCall,
  verdict: Extract<GateDecision, { decision: 'deny' }>,
): Promise<ToolCallReport> {
  return reportFailure(runtime, call, 'gate', await refuseDeniedCall(runtime, call, verdict));
}

async function approveAndRun(
  runtime: RunRuntime,
  call: GatedCall,
  verdict: Extract<GateDecision, { decision: 'require_approval' }>,
): Promise<ToolCallReport> {
  const { toolCallId, toolName: tool } = call;
  const approval = await requestApproval(runtime, call, verdict);
  if (approval.status === 'pending')
    return {
      kind: 'pending_approval',
      toolCallId,
      tool,
      approvalId: approval.approvalId,
      arguments: call.shownArguments,
      rule: verdict.rule,
      reason: verdict.reason,
    };
  if (approval.status === 'refused') return reportRefusal(runtime, call, approval.stage, approval.error);
  return runAllowed(runtime, call);
}

function runAllowed(runtime: RunRuntime, call: GatedCall): ToolCallReport | Promise<ToolCallReport> {
  // An approval may have waited a long time: nothing starts once the run is stopped.
  if (runtime.signal.aborted)
    return { kind: 'aborted', toolCallId: call.toolCallId, tool: call.toolName, started: false };
  const claiming = claimIdempotencyKey(runtime, call);
  if (claiming instanceof Promise) return claiming.then((key) => runClaimed(runtime, call, key));
  return runClaimed(runtime, call, claiming);
}

function runClaimed(runtime: RunRuntime, call: GatedCall, key: KeyClaim): ToolCallReport | Promise<ToolCallReport> {
  const { toolCallId, toolName: tool } = call;
  if (key?.status === 'refused') return reportRefusal(runtime, call, 'execution', key.error);
  if (key?.status === 'completed') {
    if (!key.outcome.ok) return reportRefusal(runtime, call, 'execution', key.outcome.error);
    const durationMs = performance.now() - call.startedAt;
    runtime.emitter.emit({ type: 'tool:end', step: call.step, toolCallId, tool, durationMs });
    // Said as what it is, done before and not now, ahead of the fields it answered then (which stay where they were,
    // so a reader of the result, and every redaction of its sensitive fields, finds them as in the first answer).
    const { data } = key.outcome;
    const alreadyDone = runtime.gateTexts.alreadyRan({ tool });
    const content = serialiseResult(
      isRecord(data) && !Object.hasOwn(data, 'already_done')
        ? { already_done: alreadyDone, ...data }
        : { already_done: alreadyDone, answer: data },
    );
    return { kind: 'done', toolCallId, tool, outcome: key.outcome, content, replayed: true };
  }
  const executing = executeToolCall(runtime, call);
  if (executing instanceof Promise) return executing.then((execution) => settleToolCall(runtime, call, key, execution));
  return settleToolCall(runtime, call, key, executing);
}
