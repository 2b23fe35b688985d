import type { AgentEvent } from '../events/agent-event.js';
import type { ModelDecision } from '../models/model-decision.js';
import type { Mutable } from '../util/mutable.js';
import {
  type CallTrace,
  digestArguments,
  digestResult,
  type GateOutcome,
  type RunEnd,
  type RunTrace,
  type StepTrace,
} from './run-trace.js';

type OpenCall = Mutable<CallTrace>;
type OpenStep = Omit<Mutable<StepTrace>, 'calls'> & { calls: OpenCall[] };
type OpenRun = Omit<Mutable<RunTrace>, 'steps'> & {
  steps: OpenStep[];
  /** Result digests seen before their call's events arrived (the journal is called synchronously). */
  results: Map<string, string>;
  /** Model decisions of the step whose `model:end` has not come yet. */
  decisions: ModelDecision[];
};

export interface TraceRecorderOptions {
  /** Called once per step, when the step is over: the next model call, or the run's end. */
  readonly onStep?: (run: RunTrace, step: StepTrace) => void;
  /** Called once per run, after its last step, on `run:end` or `run:error`. */
  readonly onRun?: (run: RunTrace) => void;
}

/**
 * Folds a run's events into steps and calls: the one place that reads
 * events for observability, shared by the trace writer, the metrics
 * collector and the evaluation runner. Feed it every event of any number of
 * runs (interleaved is fine); a run is forgotten once it ended.
 *
 * @example
 * const recorder = new TraceRecorder({ onRun: (run) => console.log(run.runId, run.steps.length) });
 * bus.subscribe((event) => recorder.record(event));
 */
export class TraceRecorder {
  readonly #runs = new Map<string, OpenRun>();
  readonly #onStep: TraceRecorderOptions['onStep'];
  readonly #onRun: TraceRecorderOptions['onRun'];

  constructor({ onStep, onRun }: TraceRecorderOptions = {}) {
    this.#onStep = onStep;
    this.#onRun = onRun;
  }

  /** The run so far, while it is in progress. */
  run(runId: string): RunTrace | undefined {
    return this.#runs.get(runId);
  }

  /**
   * Records the tool message a call was answered with, as its result digest.
   * The events carry no result, so the trace writer's journal calls this.
   */
  noteResult(runId: string, toolCallId: string, content: string): void {
    const run = this.#runs.get(runId);
    if (run === undefined) return;
    const digest = digestResult(content);
    const call = findCall(run, toolCallId);
    if (call === undefined) run.results.set(toolCallId, digest);
    else call.resultDigest = digest;
  }

  record(event: AgentEvent): void {
    if (event.type === 'run:start') {
      this.#runs.set(event.runId, {
        runId: event.runId,
        sessionId: event.sessionId,
        model: event.model,
        startedAt: event.at,
        steps: [],
        end: undefined,
        results: new Map(),
        decisions: [],
      });
      return;
    }
    const run = this.#runs.get(event.runId);
    if (run === undefined) return;
    switch (event.type) {
      case 'model:decision':
        run.decisions.push(event.decision);
        return;
      case 'model:end': {
        this.#closeStep(run);
        const decisions = run.decisions;
        run.decisions = [];
        run.steps.push({
          step: event.step,
          model: event.model ?? run.model,
          decisions,
          inputTokens: event.usage.inputTokens,
          outputTokens: event.usage.outputTokens,
          finishReason: event.finishReason,
          calls: [],
          startedAt: stepBoundary(run),
          modelEndedAt: event.at,
          endedAt: event.at,
          ...(event.routing === undefined ? {} : { routing: event.routing }),
        });
        return;
      }
      case 'tool:proposed': {
        const step = openStepFor(run, event.step, event.at);
        const resultDigest = run.results.get(event.toolCallId);
        run.results.delete(event.toolCallId);
        step.calls.push({
          toolCallId: event.toolCallId,
          tool: event.tool,
          rawArguments: event.arguments,
          argumentsDigest: digestArguments(event.arguments),
          gate: 'not_checked',
          status: 'unanswered',
          executed: false,
          stage: undefined,
          code: undefined,
          retryable: undefined,
          resultDigest,
          startedAt: event.at,
          endedAt: event.at,
          durationMs: undefined,
        });
        step.endedAt = event.at;
        return;
      }
      case 'approval:required':
        this.#update(run, event.toolCallId, event.at, {
          gate: 'approval_required',
          status: 'pending',
          approvalReason: event.reason,
        });
        return;
      case 'approval:resolved':
        this.#update(run, event.toolCallId, event.at, { gate: event.decision, status: 'unanswered' });
        return;
      case 'tool:start': {
        const gate = passedGate(findCall(run, event.toolCallId)?.gate ?? 'not_checked');
        this.#update(run, event.toolCallId, event.at, { gate, executed: true });
        return;
      }
      case 'tool:end': {
        // A replayed idempotent result ends without starting; it passed the gate all the same.
        const gate = passedGate(findCall(run, event.toolCallId)?.gate ?? 'not_checked');
        this.#update(run, event.toolCallId, event.at, {
          gate,
          status: 'ok',
          durationMs: event.durationMs,
          ...carriedDigest(event),
        });
        return;
      }
      case 'tool:error': {
        const call = findCall(run, event.toolCallId);
        const gate = gateAfterError(event.stage, call?.gate ?? 'not_checked');
        this.#update(run, event.toolCallId, event.at, {
          gate,
          status: 'error',
          stage: event.stage,
          code: event.code,
          retryable: event.retryable,
          durationMs: event.durationMs,
          ...carriedDigest(event),
        });
        return;
      }
      case 'run:end':
        this.#finish(run, {
          stopReason: event.stopReason,
          steps: event.steps,
          usage: event.usage,
          durationMs: event.durationMs,
          errorCode: undefined,
          at: event.at,
        });
        return;
      case 'run:error':
        this.#finish(run, {
          stopReason: 'error',
          steps: event.steps,
          usage: event.usage,
          durationMs: event.at - run.startedAt,
          errorCode: event.code,
          at: event.at,
        });
        return;
      default:
        return;
    }
  }

  #update(run: OpenRun, toolCallId: string, at: number, change: Partial<OpenCall>): void {
    const call = findCall(run, toolCallId);
    if (call === undefined) return;
    Object.assign(call, change, { endedAt: at });
    const step = run.steps.find((candidate) => candidate.calls.includes(call));
    if (step !== undefined) step.endedAt = Math.max(step.endedAt, at);
  }

  #closeStep(run: OpenRun): void {
    const step = run.steps.at(-1);
    if (step !== undefined) this.#onStep?.(run, step);
  }

  #finish(run: OpenRun, end: RunEnd): void {
    this.#closeStep(run);
    run.end = end;
    this.#runs.delete(run.runId);
    this.#onRun?.(run);
  }
}

function stepBoundary(run: OpenRun): number {
  return run.steps.at(-1)?.endedAt ?? run.startedAt;
}

/** The step a call belongs to; a resumed run answers its pending calls before any model call. */
function openStepFor(run: OpenRun, step: number, at: number): OpenStep {
  const last = run.steps.at(-1);
  if (last !== undefined && last.step === step) return last;
  const resumed: OpenStep = {
    step,
    model: run.model,
    inputTokens: 0,
    outputTokens: 0,
    finishReason: 'resumed',
    calls: [],
    decisions: [],
    startedAt: stepBoundary(run),
    modelEndedAt: at,
    endedAt: at,
  };
  run.steps.push(resumed);
  return resumed;
}

function findCall(run: OpenRun, toolCallId: string): OpenCall | undefined {
  for (let index = run.steps.length - 1; index >= 0; index -= 1) {
    const call = run.steps[index]?.calls.find((candidate) => candidate.toolCallId === toolCallId);
    if (call !== undefined) return call;
  }
  return undefined;
}

function gateAfterError(stage: string, before: GateOutcome): GateOutcome {
  if (stage === 'execution') return passedGate(before);
  if (stage !== 'gate') return before;
  return before === 'rejected' || before === 'denied' ? before : 'denied';
}

function passedGate(before: GateOutcome): GateOutcome {
  return before === 'not_checked' ? 'allowed' : before;
}

/** A `resultDigest` on a tool event, for when the events carry one; absent today. */
function carriedDigest(event: AgentEvent): { resultDigest?: string } {
  const digest = (event as unknown as Record<string, unknown>)['resultDigest'];
  return typeof digest === 'string' ? { resultDigest: digest } : {};
}
