import { createHash } from 'node:crypto';
import type { RunUsage } from '../core/run-usage.js';
import type { StopReason } from '../core/stop-reason.js';
import type { ToolErrorStage, ToolRoutingRecord } from '../events/agent-event.js';
import type { ModelDecision } from '../models/model-decision.js';
import { argumentsHash } from '../util/sha256.js';

/**
 * What the gate did with one call, as the events show it. `not_checked`: the
 * call never reached the gate (invalid arguments or a brake);
 * `approval_required`: it waits for a person; `denied` covers both a rule's
 * refusal and an approval nobody gave (default deny).
 */
export type GateOutcome = 'allowed' | 'approval_required' | 'approved' | 'rejected' | 'denied' | 'not_checked';

/** How a call ended: ran, failed (see `stage`), waits for approval, or was never answered (aborted, skipped). */
export type CallStatus = 'ok' | 'error' | 'pending' | 'unanswered';

/** One tool call of a step. */
export interface CallTrace {
  readonly toolCallId: string;
  readonly tool: string;
  /** The arguments as the model sent them. Kept in memory for evaluation; trace lines carry only the digest. */
  readonly rawArguments: string;
  /** sha256 of the canonical JSON of the model's arguments (of the raw text when it is not JSON). */
  readonly argumentsDigest: string;
  readonly gate: GateOutcome;
  /** Why the call waited for a person (the approval card's reason). In memory for evaluation; not in trace lines. */
  readonly approvalReason?: string;
  readonly status: CallStatus;
  /** True once the tool's `execute` started. */
  readonly executed: boolean;
  readonly stage: ToolErrorStage | undefined;
  readonly code: string | undefined;
  readonly retryable: boolean | undefined;
  /** sha256 of the tool message the model got, when the result was seen (see `createTraceWriter`'s journal). */
  readonly resultDigest: string | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
  /** The runner's own measure, from proposal to outcome (sub-millisecond); absent while unanswered. */
  readonly durationMs: number | undefined;
}

/** One model call and the tool calls it proposed. */
export interface StepTrace {
  readonly step: number;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** `stop`, `tool_calls`, `length`…; `resumed` for calls answered at the start of a resumed run. */
  readonly finishReason: string;
  readonly calls: readonly CallTrace[];
  /** Retries, waits and fallbacks of a resilient model during this step's model call. */
  readonly decisions: readonly ModelDecision[];
  /** Which tools the model call was sent, the scores and why, when a router chose them. */
  readonly routing?: ToolRoutingRecord;
  /** When the step began: the end of the previous step, or the run's start. */
  readonly startedAt: number;
  readonly modelEndedAt: number;
  readonly endedAt: number;
}

/** How a run ended. `errorCode` is set for `error`. */
export interface RunEnd {
  readonly stopReason: StopReason;
  readonly steps: number;
  readonly usage: RunUsage;
  readonly durationMs: number;
  readonly errorCode: string | undefined;
  readonly at: number;
}

/** One run, folded from its events. */
export interface RunTrace {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly model: string;
  readonly startedAt: number;
  readonly steps: readonly StepTrace[];
  readonly end: RunEnd | undefined;
}

/**
 * The digest of a call's arguments: sha256 of their canonical JSON, so key
 * order does not matter; of the raw text when it is not JSON.
 *
 * @example
 * digestArguments('{"b":1,"a":2}') === digestArguments('{"a":2,"b":1}'); // true
 */
export function digestArguments(rawArguments: string): string {
  try {
    return argumentsHash(JSON.parse(rawArguments) as unknown);
  } catch {
    return argumentsHash(rawArguments);
  }
}

/**
 * The digest of a tool message: sha256 of its exact text.
 *
 * @example
 * digestResult('{"status":"shipped"}').length; // 64
 */
export function digestResult(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
