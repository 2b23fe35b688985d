import type { StopReason } from '../core/stop-reason.js';
import type { RunRecord } from '../store/runtime-store.js';
import type { RunTrace } from './run-trace.js';
import type { TraceLine, TraceStepLine } from './trace-line.js';

/** What the tool calls of one run came to; known from events or a trace, not from the runs table. */
export interface ToolCallCounts {
  /** Calls the model proposed. */
  readonly calls: number;
  /** Calls that ran and returned a result. */
  readonly succeeded: number;
  /** Calls with the same tool and arguments as an earlier call of the run. */
  readonly repeated: number;
  /** Calls the gate refused, a person rejected, or no approval allowed. */
  readonly gateDenials: number;
  /** Calls that stopped to wait for a person. */
  readonly approvalsRequired: number;
}

/** One finished run, as the metrics need it, from whichever source was at hand. */
export interface RunObservation {
  readonly runId: string;
  readonly model: string;
  readonly stopReason: StopReason;
  readonly steps: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  /** Absent when only the runs table was read. */
  readonly tools?: ToolCallCounts | undefined;
}

/**
 * The observation of a run folded from its events; undefined while it runs.
 *
 * @example
 * new TraceRecorder({ onRun: (run) => runs.push(observeRunTrace(run)!) });
 */
export function observeRunTrace(run: RunTrace): RunObservation | undefined {
  const { end } = run;
  if (end === undefined) return undefined;
  const calls = run.steps.flatMap((step) => step.calls);
  return {
    runId: run.runId,
    model: run.model,
    stopReason: end.stopReason,
    steps: end.steps,
    inputTokens: end.usage.inputTokens,
    outputTokens: end.usage.outputTokens,
    durationMs: end.durationMs,
    startedAt: run.startedAt,
    tools: countCalls(calls),
  };
}

/**
 * The observation of a run the store kept: no tool-level counts.
 *
 * @example
 * const runs = store.listRuns().map(observeRunRecord);
 */
export function observeRunRecord(record: RunRecord): RunObservation {
  return {
    runId: record.runId,
    model: record.model,
    stopReason: record.stopReason,
    steps: record.steps,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    durationMs: Math.max(0, record.endedAt - record.startedAt),
    startedAt: record.startedAt,
  };
}

/**
 * The observations of the runs a JSONL trace holds, in the order they
 * ended. A run without its `run` line (still running, or cut off) is left
 * out. A run resumed after an approval writes a `run` line per part: the
 * last one counts, with the tool calls of all parts.
 *
 * @example
 * const runs = observeTraceLines(parseTraceLines(readFileSync(path, 'utf8')));
 */
export function observeTraceLines(lines: readonly TraceLine[]): RunObservation[] {
  const steps = new Map<string, TraceStepLine[]>();
  const ended = new Map<string, RunObservation>();
  for (const line of lines) {
    if (line.type === 'step') {
      const list = steps.get(line.runId) ?? [];
      list.push(line);
      steps.set(line.runId, list);
      continue;
    }
    const calls = (steps.get(line.runId) ?? []).flatMap((step) => step.calls);
    ended.delete(line.runId);
    ended.set(line.runId, {
      runId: line.runId,
      model: line.model,
      stopReason: line.stopReason,
      steps: line.steps,
      inputTokens: line.inputTokens,
      outputTokens: line.outputTokens,
      durationMs: line.durationMs,
      startedAt: line.at,
      tools: countCalls(calls),
    });
  }
  return [...ended.values()];
}

function countCalls(
  proposed: readonly { toolCallId: string; tool: string; argumentsDigest: string; status: string; gate: string }[],
): ToolCallCounts {
  // A call answered after a resume is proposed again under the same id: its last record counts.
  const calls = [...new Map(proposed.map((call) => [call.toolCallId, call])).values()];
  const seen = new Set<string>();
  let repeated = 0;
  for (const call of calls) {
    const key = `${call.tool}\u0000${call.argumentsDigest}`;
    if (seen.has(key)) repeated += 1;
    seen.add(key);
  }
  return {
    calls: calls.length,
    succeeded: calls.filter((call) => call.status === 'ok').length,
    repeated,
    gateDenials: calls.filter((call) => call.gate === 'denied' || call.gate === 'rejected').length,
    approvalsRequired: calls.filter((call) => call.gate === 'approval_required').length,
  };
}
