import type { Awaitable } from '../core/awaitable.js';
import type { ToolCall } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { ToolErrorPayload, ToolOutcome } from '../core/tool-outcome.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import type { EventBus } from '../events/event-bus.js';
import { approvalBinding } from '../gate/approval-binding.js';
import type { AuditLog } from '../gate/audit-log.js';
import { checkGate } from '../gate/check-gate.js';
import type { IdempotencyStore } from '../gate/idempotency-store.js';
import { requestApproval } from '../gate/request-approval.js';
import type { ToolGate } from '../gate/tool-gate.js';
import { bindToolCall } from '../loop/bind-tool-call.js';
import { CallBrakes } from '../loop/call-brakes.js';
import { parseToolCall } from '../loop/parse-tool-call.js';
import type { RunAgentOptions } from '../loop/run-agent.js';
import { createRunRuntime, type RunRuntime } from '../loop/run-runtime.js';
import { runToolCall } from '../loop/run-tool-call.js';
import type { ToolCallReport } from '../loop/tool-call-report.js';
import type { Model } from '../models/model.js';
import type { ToolSet } from '../tools/tool-registry.js';
import type { ToolDefinition } from '../tools/tool-types.js';
import { untrustedSource } from '../tools/untrusted-source.js';
import { isRecord } from '../util/is-record.js';
import type { Mutable } from '../util/mutable.js';
import { argumentsText } from '../validation/nesting-depth.js';
import { AdapterCalls, callAnswerOf } from './adapter-calls.js';
import { adapterTexts } from './adapter-texts.js';
import { answerCallAgain } from './answer-call-again.js';
import { ConversationMarks, type ConversationSessions } from './conversation-marks.js';
import { type ExternalLoop, type ExternalRunRecords, externalRunId, recordExternalRun } from './external-run.js';
import { type ExternalApprovals, LoopApprovals } from './loop-approvals.js';

/** What arbiter's gate needs to stand inside another framework's loop, per request. */
export interface ArbiterLoopOptions {
  /** Who is calling, from the server's own authentication: bound parameters are filled from it, never from the model. */
  readonly principal: Principal;
  /**
   * The application's conversation (chat id, thread id) the calls belong
   * to; with the principal it names the run approvals are bound to. Absent:
   * one run per principal.
   */
  readonly conversationId?: string;
  /** The rules; default allow-all (then nothing waits for a person). */
  readonly gate?: ToolGate;
  /** arbiter's approval store (`server.approvals`, a `SqliteApprovalBroker`): the only place an approval is given. */
  readonly approvals: ExternalApprovals;
  /**
   * Idempotency claims: the tools' own keys, and every call of the loop
   * keyed by conversation and call id, so a call id runs at most once in a
   * conversation and is answered again from its recorded result, across
   * requests and nodes. Absent: call ids are kept by this tool set only.
   */
  readonly idempotency?: IdempotencyStore;
  /**
   * arbiter's sessions (`backend.sessions`, `server.sessions`): where the
   * egress guard keeps which untrusted sources the conversation took
   * content from, so an `egress` tool waits for a person in every later
   * request of the conversation, on any node. Required when the tools
   * include an `egress` tool.
   */
  readonly sessions?: ConversationSessions;
  /** Where every call is recorded. Default: in memory, for the cumulative rules only. */
  readonly audit?: AuditLog;
  /**
   * The server's run records (`server.runs`): the run is recorded with its
   * tenant and principal so `POST /v1/approvals/:id` finds it and applies
   * the four-eyes rule. Needed when approvers decide through the server.
   */
  readonly runs?: ExternalRunRecords;
  /** Where the calls' events go (`tool:proposed`, `approval:required`, `tool:end`, …). */
  readonly events?: EventBus;
  /** The language of every model-facing text. Default `en`. */
  readonly locale?: Locale;
  /** Default per-call time limit; a tool's own `timeoutMs` wins. */
  readonly toolTimeoutMs?: number;
  /** Stops every call of this request (the request's own signal). */
  readonly signal?: AbortSignal;
  /** Told when a call waits for a person, with arbiter's approval id (to show beside the loop's own approval request). */
  readonly onApprovalRequired?: (approval: ArbiterApprovalRequest) => void;
}

/** A call that waits for a person in arbiter's store, as the outside loop's client may show it. */
export interface ArbiterApprovalRequest {
  /** arbiter's approval id: what an approver decides (`POST /v1/approvals/:id`). */
  readonly approvalId: string;
  readonly runId: string;
  /** The outside loop's id of the call. */
  readonly toolCallId: string;
  readonly tool: string;
  /** Why, for the approver. */
  readonly reason: string;
}

/**
 * What an outside loop gets back from one call, ready to be its tool
 * result: `text` is what the model reads (arbiter's message for a refusal
 * or a call that waits, in the run's language).
 */
export type ArbiterToolResult =
  | { readonly status: 'ok'; readonly data: unknown; readonly text: string }
  | { readonly status: 'error'; readonly error: ToolErrorPayload; readonly text: string }
  | { readonly status: 'awaiting_approval'; readonly approvalId: string; readonly text: string }
  | { readonly status: 'aborted'; readonly started: boolean; readonly text: string };

/** One proposed call, as an outside loop hands it over. */
export interface ProposedCall {
  readonly tool: string;
  /** The arguments, parsed (an object) or as the model sent them (a JSON string). */
  readonly input: unknown;
  readonly toolCallId: string;
  /** The step of the loop the call was made in (for the audit). */
  readonly step: number;
  /**
   * The loop asks again about a call already in its conversation (the
   * AI SDK re-checks an approved call from the client's history before it
   * executes it): the loop's approval round is kept, and `run` decides.
   */
  readonly asked?: boolean;
}

/**
 * arbiter's tool runner seen from another framework's loop. Two questions,
 * each answered by arbiter's own steps (no second copy of the pipeline):
 *
 * - `needsApproval`: validated, bound and put to the gate; for a new call,
 *   true exactly while arbiter's approval of it is pending (recorded the
 *   first time), so the loop's own approval request mirrors arbiter's; for
 *   a call the loop asked about before (`asked`), true whenever the gate
 *   holds it for a person, so the loop's round goes on to `run`.
 * - `run`: the whole tool runner (`runToolCall`: validation with every
 *   issue, the repeated-call brake, bound parameters, gate, approval,
 *   idempotency claim, execution under its time limit, audit). The loop's
 *   own approval answer is no input to it: a call that needs a person runs
 *   only when arbiter's store holds an approval for exactly this call
 *   (run, arguments hash, definition fingerprint, policy) given by someone
 *   else, and only once. Every call is keyed by conversation and call id
 *   (`AdapterCalls`): a call id runs at most once in the conversation and
 *   is answered again from its recorded result, never counted as a
 *   repeated call. What arbiter returned from an untrusted source marks the
 *   conversation in arbiter's sessions (`ConversationMarks`), read at every
 *   egress decision: an egress call waits for a person, as in `runAgent`.
 *
 * @example
 * const bridge = createGateBridge({ tools: registry, loop: 'ai_sdk', options: { principal, approvals } });
 * const result = await bridge.run({ tool: 'query_order', input: { order_id: 'SO20260901' }, toolCallId: 'call_1', step: 1 });
 */
export interface GateBridge {
  readonly runId: string;
  needsApproval(call: ProposedCall): Promise<boolean>;
  run(call: ProposedCall): Promise<ArbiterToolResult>;
}

/** Never asked: the outside loop has its own model. */
const outsideModel: Model = {
  name: 'outside-loop',
  generate: () => Promise.reject(new Error("another framework's loop calls its own model")),
};

/**
 * Builds the bridge for one request of an outside loop (see `GateBridge`).
 *
 * @example
 * const bridge = createGateBridge({ tools: registry, loop: 'openai_agents', options: { principal, approvals, gate } });
 */
export function createGateBridge({
  tools,
  loop,
  options,
}: {
  tools: ToolSet;
  loop: ExternalLoop;
  options: ArbiterLoopOptions;
}): GateBridge {
  const { principal, locale = 'en' } = options;
  const runId = externalRunId({ loop, principal, conversationId: options.conversationId });
  const egressTool = tools.names.find((name) => tools.get(name)?.definition.egress === true);
  if (egressTool !== undefined && options.sessions === undefined) {
    throw new ConfigurationError({
      setting: 'sessions',
      message: `${egressTool} sends data outside: the egress guard needs arbiter's sessions (the sessions option) to keep a conversation's untrusted content across requests`,
    });
  }
  const marks =
    options.sessions === undefined
      ? undefined
      : new ConversationMarks({ sessions: options.sessions, sessionId: runId, principal });
  const calls = new AdapterCalls({ store: options.idempotency, runId, principal });
  const approvals = new LoopApprovals({ broker: options.approvals, requester: principal.userId });
  const runtime = createRunRuntime(runOptionsOf(options, tools, principal, approvals, locale), runId);
  const texts = adapterTexts(locale);
  let recorded: Awaitable<unknown> | undefined;
  const record = (): Awaitable<unknown> => {
    if (options.runs === undefined) return undefined;
    recorded ??= recordExternalRun({ runs: options.runs, runId, principal, locale });
    return recorded;
  };
  const announce = (call: ProposedCall, approvalId: string, reason: string) =>
    options.onApprovalRequired?.({ approvalId, runId, toolCallId: call.toolCallId, tool: call.tool, reason });
  /** Call ids the repeated-call brake counted: the loop invoking one again (a waiting call resumed) is no new call. */
  const counted = new Set<string>();
  const runtimeOf = (toolCallId: string): RunRuntime => {
    if (!counted.has(toolCallId)) {
      counted.add(toolCallId);
      return runtime;
    }
    const { maxIdenticalCalls, maxConsecutiveFailures } = runtime.brakes;
    return { ...runtime, brakes: new CallBrakes({ maxIdenticalCalls, maxConsecutiveFailures }) };
  };
  /** Calls of tools whose results may be untrusted, still running: an egress call made after them waits for them. */
  const untrustedRuns = new Set<Promise<unknown>>();
  /** The conversation's marks as the store has them now (another request or node may have made one). */
  const readMarks = async () => {
    if (marks === undefined) return;
    for (const source of await marks.sources()) runtime.untrustedSources.add(source);
  };
  /** Marks the conversation before the loop gets the content: a mark that cannot be kept fails the call. */
  const noteUntrusted = async (source: string | undefined, call: ProposedCall) => {
    if (source === undefined) return;
    runtime.untrustedSources.add(source);
    await marks?.mark({ source, tool: call.tool, toolCallId: call.toolCallId });
  };

  return {
    runId,
    async needsApproval(proposed) {
      // A tool no call of which can wait for a person (and that is no egress, held once the conversation is
      // untrusted) is answered at once: `run` still puts every call through the whole pipeline, gate included.
      const known = tools.get(proposed.tool);
      if (
        known !== undefined &&
        known.definition.egress !== true &&
        runtime.gate.mayRequireApproval?.(known) === false
      ) {
        return false;
      }
      if (known?.definition.egress === true) await readMarks();
      const call = toToolCall(proposed);
      const checked = parseToolCall(runtime, tools, call);
      // An invalid call needs nobody: `run` hands the model arbiter's message.
      if (!checked.ok) return false;
      const head = { step: proposed.step, toolCallId: call.id, toolName: proposed.tool, startedAt: performance.now() };
      const gated = bindToolCall(runtime, head, checked.tool, checked.args);
      try {
        const checking = checkGate(runtime, gated);
        const verdict = checking instanceof Promise ? await checking : checking;
        if (verdict.decision !== 'require_approval') return false;
        await record();
        const key = { runId, toolCallId: call.id, tool: proposed.tool, argumentsHash: approvalBinding(gated) };
        const existing = await approvals.find(key);
        if (existing !== undefined) {
          // Asked before: nothing is asked twice. The loop checking a call it asked about keeps its round (`run`
          // decides); a call the model made again skips the round once arbiter's approval is no longer pending.
          if (proposed.asked === true) return true;
          if (existing.status !== 'pending') return false;
          announce(proposed, existing.approvalId, existing.reason);
          return true;
        }
        const approval = await requestApproval(runtime, gated, verdict);
        if (approval.status !== 'pending') return false;
        announce(proposed, approval.approvalId, verdict.reason);
        return true;
      } finally {
        gated.releaseHistory();
      }
    },
    run(proposed) {
      const definition = tools.get(proposed.tool)?.definition;
      // Taken before anything waits: the calls of one turn start in the model's order, as arbiter's batch runs them.
      const egress = definition?.egress === true;
      const running = runCall(proposed, definition, egress ? [...untrustedRuns] : noEarlierRuns);
      if (definition?.untrustedOutput !== undefined && definition.untrustedOutput !== false) {
        untrustedRuns.add(running);
        const settled = () => untrustedRuns.delete(running);
        running.then(settled, settled);
      }
      return running;
    },
  };

  /**
   * One call through the pipeline. What needs no waiting (the in-process
   * call ids, a run with no record to write, a result with no untrusted
   * source) is not awaited: each `await` of a plain value costs the step a
   * promise and a turn of the microtask queue, inside the outside loop's own.
   */
  async function runCall(
    proposed: ProposedCall,
    definition: ToolDefinition | undefined,
    earlier: readonly Promise<unknown>[],
  ): Promise<ArbiterToolResult> {
    if (earlier.length > 0) await Promise.allSettled(earlier);
    if (definition?.egress === true) await readMarks();
    // Awaited only when there is something to wait for: most requests record no run.
    const recording = record();
    if (recording !== undefined) await recording;
    const call = toToolCall(proposed);
    const claiming = calls.claim({
      toolCallId: proposed.toolCallId,
      tool: proposed.tool,
      argumentsText: call.function.arguments,
    });
    const claim = claiming instanceof Promise ? await claiming : claiming;
    if (claim.status !== 'new') {
      if (claim.status === 'answered') await noteUntrusted(claim.answer.untrusted, proposed);
      return answerCallAgain({ runtime, tools, approvals, texts, call, step: proposed.step, claim });
    }
    try {
      const running = runToolCall(runtimeOf(call.id), tools, call, proposed.step, 'run');
      const report = running instanceof Promise ? await running : running;
      let settled: Awaitable<void>;
      let result: ArbiterToolResult;
      if (report.kind === 'done') {
        result = report.outcome.ok
          ? { status: 'ok', data: report.outcome.data, text: report.content }
          : { status: 'error', error: report.outcome.error, text: report.content };
        const source = untrustedOf(definition, report.outcome);
        if (source !== undefined) await noteUntrusted(source, proposed);
        // Another attempt of the tool's own key is running or was cut short: that key decides a later attempt.
        settled =
          !report.outcome.ok && report.outcome.error.code === 'outcome_unknown'
            ? claim.release()
            : claim.complete(callAnswerOf(result, source));
      } else {
        result = await notDoneResult(report);
        // Not run (waiting for a person, cancelled before it started): the call id may still run once.
        settled = report.kind === 'aborted' && report.started ? claim.abandon() : claim.release();
      }
      if (settled instanceof Promise) await settled;
      return result;
    } catch (error) {
      // It may have acted: the call id is never run again, it reads as outcome unknown.
      await Promise.resolve()
        .then(() => claim.abandon())
        .catch(() => undefined);
      throw error;
    }
  }

  /** The untrusted source a call's answer carries content from, as arbiter's batch reads it. */
  function untrustedOf(definition: ToolDefinition | undefined, outcome: ToolOutcome): string | undefined {
    if (!outcome.ok) return outcome.error.untrusted;
    if (definition === undefined || definition.untrustedOutput === undefined) return undefined;
    return untrustedSource({ definition, result: outcome.data });
  }

  /** The result of a call that did not run to an outcome: it waits for a person, or was stopped. */
  async function notDoneResult(report: Exclude<ToolCallReport, { kind: 'done' }>): Promise<ArbiterToolResult> {
    switch (report.kind) {
      case 'pending_approval': {
        const records = await options.approvals.listApprovals({ runId });
        const reason = records.find((record) => record.approvalId === report.approvalId)?.reason;
        const text = texts.awaitingApproval({ tool: report.tool, approvalId: report.approvalId, reason });
        return { status: 'awaiting_approval', approvalId: report.approvalId, text };
      }
      case 'aborted':
        return { status: 'aborted', started: report.started, text: texts.aborted(report) };
      case 'held':
        // Only arbiter's own turns hold a call behind another; an outside loop's call is run alone.
        return { status: 'aborted', started: false, text: texts.aborted({ tool: report.tool, started: false }) };
    }
  }
}

/**
 * The runtime's options: the request's settings that are set, each
 * assigned (a spread of `{}` per absent setting cost every request a clone
 * of the literal).
 */
function runOptionsOf(
  options: ArbiterLoopOptions,
  tools: ToolSet,
  principal: Principal,
  approvals: LoopApprovals,
  locale: Locale,
): RunAgentOptions {
  const runOptions: Mutable<RunAgentOptions> = { model: outsideModel, tools, messages: [], principal, approvals };
  if (options.gate !== undefined) runOptions.gate = options.gate;
  if (options.idempotency !== undefined) runOptions.idempotency = options.idempotency;
  if (options.audit !== undefined) runOptions.audit = options.audit;
  if (options.events !== undefined) runOptions.events = options.events;
  if (options.toolTimeoutMs !== undefined) runOptions.toolTimeoutMs = options.toolTimeoutMs;
  if (options.signal !== undefined) runOptions.signal = options.signal;
  runOptions.locale = locale;
  return runOptions;
}

/** `run`'s calls to wait for before a call that is no egress: none. */
const noEarlierRuns: readonly Promise<unknown>[] = [];

function toToolCall({ tool, input, toolCallId }: ProposedCall): ToolCall {
  // Arguments nested past the limit are not serialised (that recursion overflows): validation refuses them. Flat
  // arguments (most calls) nest one level: serialised as they are, without walking them for their depth first.
  const text =
    typeof input === 'string'
      ? input
      : isRecord(input)
        ? isFlat(input)
          ? JSON.stringify(input)
          : argumentsText(input)
        : JSON.stringify(input ?? {});
  return { id: toolCallId, type: 'function', function: { name: tool, arguments: text } };
}

/** True when no property of `record` (own or inherited, enumerable) holds an object or array. */
function isFlat(record: Readonly<Record<string, unknown>>): boolean {
  for (const key in record) {
    const value = record[key];
    if (typeof value === 'object' && value !== null) return false;
  }
  return true;
}
