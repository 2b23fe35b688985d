import type { ToolCall, ToolMessage } from '../core/chat-message.js';
import type { RecordedToolResult } from '../core/run-journal.js';
import type { StopReason } from '../core/stop-reason.js';
import type { ToolOutcome } from '../core/tool-outcome.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { untrustedSource } from '../tools/untrusted-source.js';
import { isThenable } from '../util/is-thenable.js';
import type { Mutable } from '../util/mutable.js';
import type { PendingApproval } from './pending-approval.js';
import type { RunRuntime } from './run-runtime.js';
import { runToolCall } from './run-tool-call.js';
import type { ToolCallReport } from './tool-call-report.js';

export interface BatchResult {
  /** The tool messages, one per call, in the order of the calls; empty while approvals are pending. */
  readonly messages: readonly ToolMessage[];
  /** Set when the run must stop after this batch. */
  readonly stop: StopReason | undefined;
  /** An infrastructure failure; `messages` still answers every call. */
  readonly failure?: unknown;
  /** Every call of the batch changes nothing (`read`): running it again after a crash is harmless. */
  readonly rerunnable: boolean;
  /** With `awaiting_approval`: the calls that wait for a person, in the order of the calls. */
  readonly pendingApprovals?: readonly PendingApproval[];
}

/**
 * Runs one assistant turn's tool calls. Consecutive `read` calls run
 * concurrently (up to `maxParallelReads`); a `reversible` or `irreversible`
 * call runs alone, in the order the model gave. Once a call waits for a
 * person, the calls after it are only checked (and their own approvals
 * requested), never run: they run on resume, after the decision. A call whose result the
 * journal already holds is not run again. Once a brake trips or the run is
 * stopped, the remaining calls are answered as not run. While any call waits
 * for approval, no message is returned and the batch stops with
 * `awaiting_approval`; results known so far stay in the journal for the
 * resumed run. An infrastructure failure answers every call and is
 * returned as `failure`. In a batch of `read` calls only, results are
 * recorded as `rerunnable`: a crash before the batch commits runs them
 * again, which changes nothing.
 *
 * @example
 * const { messages, stop } = await runBatch(runtime, tools, calls, step);
 */
export async function runBatch(
  runtime: RunRuntime,
  tools: ToolSet,
  calls: readonly ToolCall[],
  step: number,
): Promise<BatchResult> {
  const { journal, runId, control, texts } = runtime;
  const contents = new Map<string, string>();
  /**
   * The untrusted source of each call that brought third-party content into the conversation, result or error.
   * Made when the first one does (as `pending` when the first call waits for a person): most batches have neither.
   */
  let untrusted: Map<string, string> | undefined;
  // A result of a tool declaring `untrustedOutput`, or an error quoting a third party: either reaches the model.
  const noteUntrusted = (call: ToolCall, outcome: ToolOutcome) => {
    const definition = outcome.ok ? tools.get(call.function.name)?.definition : undefined;
    const source = !outcome.ok
      ? outcome.error.untrusted
      : definition === undefined
        ? undefined
        : untrustedSource({ definition, result: outcome.data });
    if (source === undefined) return;
    untrusted ??= new Map();
    untrusted.set(call.id, source);
    runtime.untrustedSources.add(source);
  };
  let pending: Map<string, PendingApproval> | undefined;
  let stop: StopReason | undefined;
  let failure: unknown;
  const groups = groupCalls(calls, tools);
  const rerunnable = groups.every((group) => group.parallel);

  /** Records a call's answer; the journal's own awaitable, so a synchronous journal costs no promise. */
  const answer = (result: Mutable<RecordedToolResult>) => {
    contents.set(result.toolCallId, result.content);
    if (rerunnable) result.rerunnable = true;
    return journal.recordToolResult(runId, result);
  };

  /**
   * Runs one call and records its answer. Answers synchronously when every part does (the journal's lookup and
   * record, the call itself): no promise and no turn of the microtask queue per call. May throw; `settleOne`
   * turns a throw into a rejected outcome, as `Promise.allSettled` does.
   */
  const runOne = (call: ToolCall): void | Promise<void> => {
    const finding = journal.findToolResult(runId, call.id);
    // Any thenable a journal returns is waited for (a journal of another realm or library need not make Promises).
    if (isThenable(finding)) return Promise.resolve(finding).then((recorded) => runUnrecorded(call, recorded));
    return runUnrecorded(call, finding);
  };

  const runUnrecorded = (call: ToolCall, recorded: RecordedToolResult | undefined): void | Promise<void> => {
    if (recorded !== undefined) {
      contents.set(call.id, recorded.content);
      noteUntrusted(call, recorded.outcome);
      return;
    }
    const running = runToolCall(runtime, tools, call, step, pending === undefined ? 'run' : 'check_only');
    if (running instanceof Promise) return running.then((report) => settleReport(call, report));
    return settleReport(call, running);
  };

  const settleReport = (call: ToolCall, report: ToolCallReport): void | Promise<void> => {
    if (report.kind === 'held') return;
    if (report.kind === 'pending_approval') {
      const { kind: _kind, ...approval } = report;
      pending ??= new Map();
      pending.set(call.id, approval);
      return;
    }
    if (report.kind === 'aborted') {
      stop ??= control.reason ?? 'aborted';
      if (!report.started) return;
      // It may have acted before it gave up: never tell the model it did not run.
      const content = texts.interrupted({ tool: report.tool });
      const recorded = answer({
        toolCallId: call.id,
        tool: report.tool,
        content,
        outcome: { ok: false, error: { code: 'outcome_unknown', retryable: false, message: content } },
      });
      return isThenable(recorded) ? Promise.resolve(recorded).then(() => undefined) : undefined;
    }
    const answered = answer({
      toolCallId: call.id,
      tool: report.tool,
      content: report.content,
      outcome: report.outcome,
    });
    if (isThenable(answered)) return Promise.resolve(answered).then(() => noteAnswered(call, report));
    noteAnswered(call, report);
  };

  const noteAnswered = (call: ToolCall, report: Extract<ToolCallReport, { kind: 'done' }>): void => {
    noteUntrusted(call, report.outcome);
    if (report.brake !== undefined) stop ??= report.brake;
  };

  /** What `Promise.allSettled` gives for one call, without its allocations, and without a promise when the call answered synchronously. */
  const settleOne = (call: ToolCall): PromiseSettledResult<void> | Promise<PromiseSettledResult<void>> => {
    let running: void | Promise<void>;
    try {
      running = runOne(call);
    } catch (reason) {
      return { status: 'rejected', reason };
    }
    if (running instanceof Promise) return running.then(fulfilled, rejected);
    return fulfilledResult;
  };

  let firstChunk = true;
  for (const group of groups) {
    stop ??= control.reason;
    if (stop !== undefined || failure !== undefined) break;
    const limit = group.parallel ? runtime.maxParallelReads : 1;
    for (let start = 0; start < group.calls.length; start += limit) {
      stop ??= control.reason;
      if (stop !== undefined) break;
      const chunk = start === 0 && group.calls.length <= limit ? group.calls : group.calls.slice(start, start + limit);
      // Every chunk after the first waits one turn of the microtask queue, so that subscribers drain the events of
      // the calls before even when those settled synchronously (a batch of many quick calls must not overflow a
      // subscriber's queue); a step of one call, the usual case, waits for nothing.
      if (!firstChunk) await Promise.resolve();
      firstChunk = false;
      let settled: readonly PromiseSettledResult<void>[];
      if (chunk.length === 1) {
        const one = settleOne(chunk[0] as ToolCall);
        settled = [one instanceof Promise ? await one : one];
      } else {
        settled = await Promise.all(chunk.map(settleOne));
      }
      for (let index = 0; index < settled.length; index += 1) {
        const outcome = settled[index] as PromiseSettledResult<void>;
        const call = chunk[index];
        if (outcome.status !== 'rejected' || call === undefined) continue;
        failure ??= outcome.reason;
        // It may have taken effect before it failed: never tell the model it did not run.
        contents.set(call.id, texts.interrupted({ tool: call.function.name }));
      }
      if (failure !== undefined) break;
    }
  }

  if (failure === undefined && stop === undefined && pending !== undefined) {
    const waiting = pending;
    const pendingApprovals = calls.flatMap((call) => waiting.get(call.id) ?? []);
    return { messages: [], stop: 'awaiting_approval', rerunnable, pendingApprovals };
  }
  const reason = failure === undefined ? stop : 'error';
  const messages: ToolMessage[] = [];
  for (const call of calls) {
    let content = contents.get(call.id);
    if (content === undefined) {
      content = texts.skipped({ reason: reason ?? 'error' });
      if (failure === undefined) {
        await journal.recordToolResult(runId, {
          toolCallId: call.id,
          tool: call.function.name,
          content,
          outcome: { ok: false, error: { code: 'not_run', retryable: false, message: content } },
          ...(rerunnable ? { rerunnable } : {}),
        });
      }
    }
    const source = untrusted?.get(call.id);
    // Two literals, not a conditional spread: the spread made an empty object and copied it in, per call.
    messages.push(
      source === undefined
        ? { role: 'tool', tool_call_id: call.id, content }
        : { role: 'tool', tool_call_id: call.id, content, untrusted: source },
    );
  }
  return failure === undefined ? { messages, stop, rerunnable } : { messages, stop: 'error', failure, rerunnable };
}

function groupCalls(calls: readonly ToolCall[], tools: ToolSet): { parallel: boolean; calls: ToolCall[] }[] {
  const groups: { parallel: boolean; calls: ToolCall[] }[] = [];
  for (const call of calls) {
    const sideEffect = tools.get(call.function.name)?.definition.sideEffect ?? 'read';
    const last = groups.at(-1);
    if (sideEffect === 'read' && last?.parallel === true) last.calls.push(call);
    else groups.push({ parallel: sideEffect === 'read', calls: [call] });
  }
  return groups;
}

const fulfilledResult: PromiseFulfilledResult<void> = Object.freeze({ status: 'fulfilled', value: undefined });
const fulfilled = (): PromiseSettledResult<void> => fulfilledResult;
const rejected = (reason: unknown): PromiseSettledResult<void> => ({ status: 'rejected', reason });
