import { truncateToolResult } from '../context/truncate-tool-result.js';
import { isCallHistorySource } from '../core/call-history.js';
import type { ToolCall } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { ToolErrorPayload, ToolOutcome } from '../core/tool-outcome.js';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { InfrastructureError } from '../errors/infrastructure-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import { ToolTimeoutError } from '../errors/tool-timeout-error.js';
import type { ToolErrorStage } from '../events/agent-event.js';
import type { RunEmitter } from '../events/event-bus.js';
import type { ApprovalBroker } from '../gate/approval-broker.js';
import type { AuditDecision, AuditLog, OriginalCall } from '../gate/audit-log.js';
import { bindPrincipalParameters } from '../gate/bind-principal-parameters.js';
import { createCallHistory } from '../gate/create-call-history.js';
import { gateTexts } from '../gate/gate-texts.js';
import type { IdempotencyClaim, IdempotencyStore } from '../gate/idempotency-store.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';
import type { ToolContext } from '../tools/tool-types.js';
import { redact } from '../util/redact.js';
import { argumentsHash } from '../util/sha256.js';
import { validateToolCall } from '../validation/validate-tool-call.js';
import type { CallBrakes } from './call-brakes.js';
import { loopTexts } from './loop-texts.js';

/**
 * How errors are worded for the model. `full` is arbiter's message (field,
 * expectation, example, what was sent); `field_only` names the field and
 * nothing else; `vague` says only "Tool execution failed". The latter two
 * exist to measure what message quality is worth.
 */
export type ErrorStyle = 'full' | 'field_only' | 'vague';

/** What happened to one tool call, ready to become its tool message. */
export type ToolCallReport =
  | {
      readonly kind: 'done';
      readonly toolCallId: string;
      readonly tool: string;
      readonly outcome: ToolOutcome;
      /** The tool message's content, in the requested error style. */
      readonly content: string;
      /** Set when this call trips a brake that stops the run. */
      readonly brake?: 'repeated_call' | 'tool_failures';
    }
  /**
   * The run was stopped: before the tool started (`started: false`, nothing
   * happened), or while it ran and it gave up (`started: true`: it may have
   * acted, its outcome is unknown).
   */
  | { readonly kind: 'aborted'; readonly toolCallId: string; readonly tool: string; readonly started: boolean }
  /** Checked and allowed, but not run: an earlier call of the turn waits for a person (see `hold`). */
  | { readonly kind: 'held'; readonly toolCallId: string; readonly tool: string }
  /** The call waits for a person; nothing ran. The run stops with `awaiting_approval`. */
  | {
      readonly kind: 'pending_approval';
      readonly toolCallId: string;
      readonly tool: string;
      readonly approvalId: string;
    };

export interface RunToolCallOptions {
  readonly call: ToolCall;
  readonly tools: ToolSet;
  readonly brakes: CallBrakes;
  readonly gate: ToolGate;
  readonly approvals: ApprovalBroker;
  readonly idempotency: IdempotencyStore | undefined;
  /** Where every call is recorded; when it can answer `findCalls`, also where `context.history` is read from. */
  readonly audit: AuditLog | undefined;
  readonly emitter: RunEmitter;
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly principal: Principal | undefined;
  readonly signal: AbortSignal;
  readonly locale: Locale;
  readonly errorStyle: ErrorStyle;
  /** Default per-call time limit; a tool's own `timeoutMs` wins. */
  readonly timeoutMs: number | undefined;
  /** The model decodes tools in strict mode: an optional argument sent as `null` means absent. */
  readonly nullMeansAbsent?: boolean;
  /**
   * An earlier call of the turn waits for a person: check this call and ask
   * for its approval if it needs one, but run nothing (it runs on resume).
   */
  readonly hold?: boolean;
}

/**
 * The tool runner: every tool call passes through here and only here.
 * Parse, look up, validate (all issues at once), brakes, bind the
 * principal's parameters, gate (tier, argument rules with the call history,
 * approval), claim the idempotency key (scoped by tenant and principal),
 * execute under a time limit, audit, and turn whatever happened into data
 * for the model. Throws `InfrastructureError` only for
 * failures the model cannot fix; everything the model can act on comes back
 * as a report.
 *
 * @example
 * const report = await runToolCall({ call, tools, brakes, gate, approvals, emitter, runId, step, signal, ... });
 */
export async function runToolCall(options: RunToolCallOptions): Promise<ToolCallReport> {
  const { call, tools, brakes, emitter, step, locale, errorStyle } = options;
  const toolCallId = call.id;
  const name = call.function.name;
  const texts = loopTexts(locale);
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  emitter.emit({ type: 'tool:proposed', step, toolCallId, tool: name, arguments: call.function.arguments });

  const report = (
    stage: ToolErrorStage,
    error: ToolErrorPayload,
    { counts = true, brake }: { counts?: boolean; brake?: 'repeated_call' } = {},
  ): ToolCallReport => {
    const tripped = counts && brakes.noteOutcome(name, false) ? 'tool_failures' : undefined;
    emitter.emit({
      type: 'tool:error',
      step,
      toolCallId,
      tool: name,
      stage,
      code: error.code,
      retryable: error.retryable,
      durationMs: elapsed(),
    });
    const done = {
      kind: 'done' as const,
      toolCallId,
      tool: name,
      outcome: { ok: false as const, error },
      content: styleContent({ errorStyle, error, locale }),
    };
    const stopsRun = brake ?? tripped;
    return stopsRun === undefined ? done : { ...done, brake: stopsRun };
  };

  const checked = validateToolCall({
    registry: tools,
    name,
    rawArguments: call.function.arguments,
    locale,
    nullMeansAbsent: options.nullMeansAbsent === true,
  });
  if (!checked.ok) {
    const issues = checked.issues.map(({ path, code, message }) => ({ path, code, message }));
    const code = checked.issues.length === 1 ? (checked.issues[0]?.code ?? 'invalid_arguments') : 'invalid_arguments';
    return report('validation', { code, retryable: true, message: checked.message, issues });
  }
  const { tool, args } = checked;

  const times = brakes.noteCall(name, args);
  if (times > brakes.maxIdenticalCalls) {
    const message = texts.repeated({ tool: name, times: times - 1 });
    return report('brake', { code: 'repeated_call', retryable: false, message }, { brake: 'repeated_call' });
  }

  const scopedHistory = createCallHistory({
    source: isCallHistorySource(options.audit) ? options.audit : undefined,
    runId: options.runId,
    sessionId: options.sessionId,
    principal: options.principal,
    tool: name,
  });
  const context: ToolContext = {
    runId: options.runId,
    sessionId: options.sessionId,
    step,
    toolCallId,
    principal: options.principal,
    signal: options.signal,
    locale,
    history: scopedHistory.history,
  };
  try {
    return await gateAndExecute({
      options,
      tool,
      args,
      context,
      report,
      elapsed,
      releaseHistory: scopedHistory.release,
    });
  } finally {
    // Once the call is decided and audited, the principal's next history-reading call may count it.
    scopedHistory.release();
  }
}

/** Everything after validation and the brakes: gate, approval, idempotency, execution, audit. */
async function gateAndExecute({
  options,
  tool,
  args,
  context,
  report,
  elapsed,
  releaseHistory,
}: {
  options: RunToolCallOptions;
  tool: RegisteredTool;
  args: Record<string, unknown>;
  context: ToolContext;
  report: (
    stage: ToolErrorStage,
    error: ToolErrorPayload,
    extra?: { counts?: boolean; brake?: 'repeated_call' },
  ) => ToolCallReport;
  elapsed: () => number;
  releaseHistory: () => void;
}): Promise<ToolCallReport> {
  const { brakes, emitter, step, locale } = options;
  const { toolCallId } = context;
  const name = tool.definition.name;
  const texts = loopTexts(locale);
  const principal = options.principal;
  const boundArgs = bindPrincipalParameters({ args, tool, principal });
  const hash = argumentsHash(boundArgs);
  const shownArgs = redact(boundArgs, tool.definition.sensitive ?? []) as Record<string, unknown>;
  const audit = (
    decision: AuditDecision,
    outcome: string,
    extra: { rule?: string | undefined; approver?: string | undefined; replayOf?: OriginalCall } = {},
  ) =>
    options.audit?.append({
      at: Date.now(),
      sessionId: options.sessionId,
      runId: options.runId,
      step,
      toolCallId,
      tool: name,
      sideEffect: tool.definition.sideEffect,
      argumentsHash: hash,
      arguments: shownArgs,
      decision,
      rule: extra.rule,
      approver: extra.approver,
      ...(principal === undefined ? {} : { tenantId: principal.tenantId, userId: principal.userId }),
      ...(extra.replayOf === undefined ? {} : { replayOf: extra.replayOf }),
      outcome,
      durationMs: elapsed(),
    });

  const checking = options.gate.check({ tool, args: boundArgs, context });
  const verdict = checking instanceof Promise ? await checking : checking;
  // Only a call let through automatically keeps the principal's history lock until it is audited.
  if (verdict.decision !== 'allow' || options.hold === true) releaseHistory();
  let decision: AuditDecision = 'allowed';
  let approver: string | undefined;
  if (verdict.decision === 'deny') {
    await audit('denied', 'not_run', { rule: verdict.rule });
    const message = texts.refused({ tool: name, code: verdict.code, message: verdict.message });
    return report('gate', { code: verdict.code, retryable: false, message });
  }
  if (verdict.decision === 'allow' && verdict.rule !== undefined) decision = 'auto_approved';
  if (verdict.decision === 'allow' && options.hold === true) return { kind: 'held', toolCallId, tool: name };
  if (verdict.decision === 'require_approval') {
    let announced = false;
    const announce = (approvalId: string) => {
      if (announced) return;
      announced = true;
      emitter.emit({
        type: 'approval:required',
        step,
        toolCallId,
        approvalId,
        tool: name,
        arguments: shownArgs,
        rule: verdict.rule,
        reason: verdict.reason,
      });
    };
    const state = await options.approvals.decide(
      {
        runId: options.runId,
        sessionId: options.sessionId,
        step,
        toolCallId,
        tool: name,
        arguments: shownArgs,
        argumentsHash: hash,
        rule: verdict.rule,
        reason: verdict.reason,
      },
      { signal: options.signal, onRequired: announce },
    );
    if (state.status === 'pending') {
      if (state.isNew) announce(state.approvalId);
      return { kind: 'pending_approval', toolCallId, tool: name, approvalId: state.approvalId };
    }
    emitter.emit({
      type: 'approval:resolved',
      toolCallId,
      approvalId: state.approvalId,
      tool: name,
      decision: state.status,
      approver: state.status === 'denied' ? undefined : state.approver,
    });
    if (state.status === 'rejected') {
      await audit('rejected', 'not_run', { rule: verdict.rule, approver: state.approver });
      const message = texts.refused({
        tool: name,
        code: 'rejected_by_approver',
        message: gateTexts(locale).rejected({ reason: state.reason }),
      });
      return report('gate', { code: 'rejected_by_approver', retryable: false, message }, { counts: false });
    }
    if (state.status === 'denied' && state.code === 'approval_used') {
      // This exact call was approved and let through before, yet has no recorded result: it may have run.
      await audit('denied', 'outcome_unknown', { rule: verdict.rule });
      const message = texts.outcomeUnknown({ tool: name });
      return report('execution', { code: 'outcome_unknown', retryable: false, message }, { counts: false });
    }
    if (state.status === 'denied') {
      const code = state.code ?? 'approval_denied';
      await audit('denied', 'not_run', { rule: verdict.rule });
      const message = texts.refused({ tool: name, code, message: gateTexts(locale).approvalDenied({ code }) });
      return report('gate', { code, retryable: false, message }, { counts: false });
    }
    decision = 'approved';
    approver = state.approver;
  }
  const rule = verdict.rule;
  // An approval may have waited a long time: nothing starts once the run is stopped.
  if (options.signal.aborted) return { kind: 'aborted', toolCallId, tool: name, started: false };

  const key = options.idempotency === undefined ? undefined : tool.definition.idempotencyKey?.(boundArgs, context);
  let claim: IdempotencyClaim | undefined;
  if (key !== undefined && options.idempotency !== undefined) {
    claim = await options.idempotency.claim({
      key,
      claimant: { tenantId: principal?.tenantId ?? '', userId: principal?.userId ?? '' },
      scope: tool.definition.idempotencyScope ?? 'principal',
      runId: options.runId,
      toolCallId,
      tool: name,
    });
    if (claim.status === 'claimed_by_another_user') {
      await audit(decision, 'claimed_by_another_user', { rule, approver, replayOf: claim.original });
      const message = texts.refused({
        tool: name,
        code: 'claimed_by_another_user',
        message: gateTexts(locale).claimedByAnotherUser(),
      });
      return report('execution', { code: 'claimed_by_another_user', retryable: false, message }, { counts: false });
    }
    if (claim.status === 'completed') {
      const replayOf = claim.original;
      await audit(decision, `replayed:${claim.outcome.ok ? 'ok' : claim.outcome.error.code}`, {
        rule,
        approver,
        replayOf,
      });
      if (!claim.outcome.ok) return report('execution', claim.outcome.error, { counts: false });
      emitter.emit({ type: 'tool:end', step, toolCallId, tool: name, durationMs: elapsed() });
      return {
        kind: 'done',
        toolCallId,
        tool: name,
        outcome: claim.outcome,
        content: serialiseResult(claim.outcome.data),
      };
    }
    if (claim.status === 'outcome_unknown') {
      await audit(decision, 'outcome_unknown', { rule, approver, replayOf: claim.original });
      const message = texts.outcomeUnknown({ tool: name });
      return report('execution', { code: 'outcome_unknown', retryable: false, message }, { counts: false });
    }
  }
  const claimed = claim?.status === 'claimed' ? claim : undefined;

  emitter.emit({ type: 'tool:start', step, toolCallId, tool: name });
  const timeoutMs = tool.definition.timeoutMs ?? options.timeoutMs;
  /** Closes the `tool:start` of a call that ended without an answer for the model. */
  const executionFailed = (code: string) =>
    emitter.emit({
      type: 'tool:error',
      step,
      toolCallId,
      tool: name,
      stage: 'execution',
      code,
      retryable: false,
      durationMs: elapsed(),
    });
  let outcome: ToolOutcome;
  try {
    const data = await executeWithin({ tool, args: boundArgs, context, timeoutMs });
    outcome = { ok: true, data };
  } catch (error) {
    const failure = classifyFailure({ error, tool, timeoutMs, signal: options.signal, locale });
    if (failure.kind === 'aborted') {
      // The tool may have acted before it gave up: the key stays claimed, its outcome unknown.
      await claimed?.abandon();
      await audit(decision, 'aborted', { rule, approver });
      executionFailed('outcome_unknown');
      return { kind: 'aborted', toolCallId, tool: name, started: true };
    }
    if (failure.kind === 'infrastructure') {
      await claimed?.abandon();
      await audit(decision, 'infrastructure_failure', { rule, approver });
      executionFailed(ToolTimeoutError.isInstance(error) ? 'tool_timeout' : 'infrastructure_failure');
      throw new InfrastructureError({ message: `tool "${name}" failed unexpectedly`, toolName: name, cause: error });
    }
    // The tool refused and changed nothing: the key is free for a corrected or later call.
    await claimed?.release();
    await audit(decision, failure.error.code, { rule, approver });
    return report('execution', failure.error);
  }
  await claimed?.complete(outcome);
  await audit(decision, 'ok', { rule, approver });
  brakes.noteOutcome(name, true);
  emitter.emit({ type: 'tool:end', step, toolCallId, tool: name, durationMs: elapsed() });
  return { kind: 'done', toolCallId, tool: name, outcome, content: serialiseResult(outcome.ok ? outcome.data : null) };
}

async function executeWithin({
  tool,
  args,
  context,
  timeoutMs,
}: {
  tool: RegisteredTool;
  args: Record<string, unknown>;
  context: ToolContext;
  timeoutMs: number | undefined;
}): Promise<unknown> {
  if (timeoutMs === undefined) return tool.definition.execute(args, context);
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal.reason);
  if (context.signal.aborted) onAbort();
  else context.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = new ToolTimeoutError({ toolName: tool.definition.name, timeoutMs });
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  try {
    return await Promise.race([tool.definition.execute(args, { ...context, signal: controller.signal }), timeout]);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
  }
}

function classifyFailure({
  error,
  tool,
  timeoutMs,
  signal,
  locale,
}: {
  error: unknown;
  tool: RegisteredTool;
  timeoutMs: number | undefined;
  signal: AbortSignal;
  locale: Locale;
}): { kind: 'aborted' } | { kind: 'infrastructure' } | { kind: 'model'; error: ToolErrorPayload } {
  const name = tool.definition.name;
  const texts = loopTexts(locale);
  if (RetryableToolError.isInstance(error)) {
    const message = texts.retryable({ tool: name, code: error.code, message: error.message });
    return { kind: 'model', error: { code: error.code, retryable: true, message } };
  }
  if (FatalToolError.isInstance(error)) {
    const message = texts.refused({ tool: name, code: error.code, message: error.message });
    return { kind: 'model', error: { code: error.code, retryable: false, message } };
  }
  if (ToolTimeoutError.isInstance(error) && timeoutMs !== undefined) {
    if (tool.definition.retrySafe !== true) return { kind: 'infrastructure' };
    const message = texts.timedOut({ tool: name, seconds: error.timeoutMs / 1000 });
    return { kind: 'model', error: { code: 'tool_timeout', retryable: true, message } };
  }
  if (signal.aborted) return { kind: 'aborted' };
  return { kind: 'infrastructure' };
}

/** Results always reach the model as JSON, so data is never confused with an error sentence. */
function serialiseResult(data: unknown): string {
  return truncateToolResult(JSON.stringify(data ?? null));
}

function styleContent({
  errorStyle,
  error,
  locale,
}: {
  errorStyle: ErrorStyle;
  error: ToolErrorPayload;
  locale: Locale;
}): string {
  if (errorStyle === 'full') return error.message;
  if (errorStyle === 'vague') return loopTexts(locale).vague();
  const fields = (error.issues ?? []).map((issue) => issue.path.replace(/^\$\.?/, '')).filter((field) => field !== '');
  if (fields.length === 0)
    return locale === 'zh-CN' ? `调用失败（${error.code}）。` : `The call failed (${error.code}).`;
  return fields
    .map((field) => (locale === 'zh-CN' ? `参数 ${field} 不正确。` : `${field} has the wrong format.`))
    .join(' ');
}
