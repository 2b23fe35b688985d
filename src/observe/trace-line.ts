import type { StopReason } from '../core/stop-reason.js';
import type { ToolErrorStage, ToolRoutingRecord } from '../events/agent-event.js';
import type { CallStatus, GateOutcome, RunTrace, StepTrace } from './run-trace.js';

/** One tool call inside a step line. Arguments appear only as their digest. */
export interface TraceCallLine {
  readonly toolCallId: string;
  readonly tool: string;
  readonly argumentsDigest: string;
  readonly gate: GateOutcome;
  readonly status: CallStatus;
  readonly stage?: ToolErrorStage;
  readonly code?: string;
  readonly resultDigest?: string;
  /** From the model's proposal to the outcome, gate and approval included. */
  readonly elapsedMs: number;
}

/** One line per model step: the model call and the tool calls it proposed. */
export interface TraceStepLine {
  readonly type: 'step';
  readonly runId: string;
  readonly sessionId?: string;
  readonly step: number;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly finishReason: string;
  readonly calls: readonly TraceCallLine[];
  /** Retries, waits and fallbacks of the model call, when there were any. */
  readonly decisions?: readonly {
    readonly kind: string;
    readonly model: string;
    readonly attempt: number;
    readonly delayMs: number;
    readonly errorKind: string;
  }[];
  /** Which tools the model call was sent, the scores and why, when a router chose them. */
  readonly routing?: ToolRoutingRecord;
  /** The whole step: model call and tool calls. */
  readonly elapsedMs: number;
  /** The model call alone. */
  readonly modelMs: number;
  /** Epoch milliseconds at the step's start. */
  readonly at: number;
}

/** One line per run, after its last step. */
export interface TraceRunLine {
  readonly type: 'run';
  readonly runId: string;
  readonly sessionId?: string;
  readonly model: string;
  readonly stopReason: StopReason;
  readonly steps: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
  readonly errorCode?: string;
  /** Epoch milliseconds at the run's start. */
  readonly at: number;
}

export type TraceLine = TraceStepLine | TraceRunLine;

/**
 * The trace line of a finished step.
 *
 * @example
 * new TraceRecorder({ onStep: (run, step) => write(JSON.stringify(stepLine(run, step))) });
 */
export function stepLine(run: RunTrace, step: StepTrace): TraceStepLine {
  return {
    type: 'step',
    runId: run.runId,
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    step: step.step,
    model: step.model,
    inputTokens: step.inputTokens,
    outputTokens: step.outputTokens,
    finishReason: step.finishReason,
    calls: step.calls.map((call) => ({
      toolCallId: call.toolCallId,
      tool: call.tool,
      argumentsDigest: call.argumentsDigest,
      gate: call.gate,
      status: call.status,
      ...(call.stage === undefined ? {} : { stage: call.stage }),
      ...(call.code === undefined ? {} : { code: call.code }),
      ...(call.resultDigest === undefined ? {} : { resultDigest: call.resultDigest }),
      elapsedMs: round(call.durationMs ?? call.endedAt - call.startedAt),
    })),
    ...(step.decisions.length === 0
      ? {}
      : {
          decisions: step.decisions.map((decision) => ({
            kind: decision.kind,
            model: decision.model,
            attempt: decision.attempt,
            delayMs: decision.delayMs,
            errorKind: decision.errorKind,
          })),
        }),
    ...(step.routing === undefined ? {} : { routing: step.routing }),
    elapsedMs: round(step.endedAt - step.startedAt),
    modelMs: round(step.modelEndedAt - step.startedAt),
    at: step.startedAt,
  };
}

/**
 * The trace line of a finished run; undefined while it runs.
 *
 * @example
 * new TraceRecorder({ onRun: (run) => write(JSON.stringify(runLine(run))) });
 */
export function runLine(run: RunTrace): TraceRunLine | undefined {
  const { end } = run;
  if (end === undefined) return undefined;
  return {
    type: 'run',
    runId: run.runId,
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    model: run.model,
    stopReason: end.stopReason,
    steps: end.steps,
    inputTokens: end.usage.inputTokens,
    outputTokens: end.usage.outputTokens,
    durationMs: round(end.durationMs),
    ...(end.errorCode === undefined ? {} : { errorCode: end.errorCode }),
    at: run.startedAt,
  };
}

/**
 * Reads a JSONL trace. Lines that are blank, not JSON, or not trace lines
 * (another tool's log in the same file) are skipped, so a half-written last
 * line does not break a report.
 *
 * @example
 * const lines = parseTraceLines(readFileSync('.arbiter/traces.jsonl', 'utf8'));
 */
export function parseTraceLines(text: string): TraceLine[] {
  const lines: TraceLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    if (isTraceLine(value)) lines.push(value);
  }
  return lines;
}

function isTraceLine(value: unknown): value is TraceLine {
  if (typeof value !== 'object' || value === null) return false;
  const line = value as Record<string, unknown>;
  if (typeof line['runId'] !== 'string') return false;
  if (line['type'] === 'step') return typeof line['step'] === 'number' && Array.isArray(line['calls']);
  if (line['type'] === 'run') return typeof line['stopReason'] === 'string' && typeof line['steps'] === 'number';
  return false;
}

function round(milliseconds: number): number {
  return Math.round(milliseconds * 100) / 100;
}
