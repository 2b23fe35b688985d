import type { RunUsage, TokenUsage } from '../core/run-usage.js';
import type { StopReason } from '../core/stop-reason.js';
import type { ModelDecision } from '../models/model-decision.js';

/** Fields every event carries: which run, its place in the run, and when. */
export interface EventEnvelope {
  readonly runId: string;
  /** Strictly increasing within a run, from 1. A hole means a lost event. */
  readonly seq: number;
  /** Epoch milliseconds. */
  readonly at: number;
}

/**
 * Which tools a step's model call was sent, when a router chose them from a
 * larger mounted set (`runAgent`'s `routing` option): for the trace.
 */
export interface ToolRoutingRecord {
  /** The tools sent, in the mounted set's order (stable, so the prompt prefix stays cacheable). */
  readonly tools: readonly string[];
  /** How many tools were mounted before routing. */
  readonly offered: number;
  /**
   * How they were chosen: `all_fit` (no more mounted than `topK`), `lexical`
   * (BM25), `model` (the router model's answer), `lexical_fallback` (the
   * router model failed; see `fallback`), `no_match` (nothing matched the
   * request: the `onNoMatch` policy decided).
   */
  readonly reason: 'all_fit' | 'lexical' | 'model' | 'lexical_fallback' | 'no_match';
  /** Why the router model's answer was not used: `timeout`, `model_error`, `invalid_answer`. */
  readonly fallback?: string;
  /** Tools sent whatever the ranking: in use in the current turn, or always sent. */
  readonly kept: readonly string[];
  /** The best lexical scores, best first, rounded to two decimals. */
  readonly scores: readonly { readonly tool: string; readonly score: number }[];
  /** Time spent choosing, the router model's call included. */
  readonly durationMs: number;
}

/** Where in the tool runner a call failed. */
export type ToolErrorStage = 'validation' | 'brake' | 'gate' | 'execution';

export type AgentEventBody =
  | { readonly type: 'run:start'; readonly sessionId: string | undefined; readonly model: string }
  | {
      readonly type: 'run:end';
      readonly stopReason: StopReason;
      readonly steps: number;
      readonly usage: RunUsage;
      readonly durationMs: number;
      /** In the price table's currency, when the run was given prices. */
      readonly cost?: number;
    }
  | {
      readonly type: 'run:error';
      readonly code: string;
      readonly message: string;
      readonly steps: number;
      readonly usage: RunUsage;
    }
  | {
      readonly type: 'model:delta';
      readonly step: number;
      /**
       * A fragment of the answer. For a slow subscriber (or behind
       * `batchDeltas`) several fragments may arrive merged in one event that
       * carries the seq of the last of them, so the seqs before it look like a hole.
       */
      readonly text: string;
    }
  | {
      /** A retry, wait, fallback or give-up of a resilient model: kinds and numbers, never endpoint text. */
      readonly type: 'model:decision';
      readonly step: number;
      readonly decision: ModelDecision;
    }
  | {
      readonly type: 'model:end';
      readonly step: number;
      /** The model that answered (after a fallback, not the one first asked). */
      readonly model?: string;
      readonly usage: TokenUsage;
      readonly finishReason: string;
      readonly toolCalls: number;
      /** Which tools this call was sent and why, when a router chose them. */
      readonly routing?: ToolRoutingRecord;
    }
  | {
      readonly type: 'tool:proposed';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      /** The raw arguments as the model sent them (internal; never projected as-is). */
      readonly arguments: string;
    }
  | {
      readonly type: 'approval:required';
      readonly step: number;
      readonly toolCallId: string;
      readonly approvalId: string;
      readonly tool: string;
      readonly arguments: Readonly<Record<string, unknown>>;
      readonly rule: string;
      /** Why a person must decide, in a sentence for the approver. */
      readonly reason: string;
      /** When the approval is denied if nobody decided (ms since the epoch), where the broker keeps one. */
      readonly expiresAt?: number;
    }
  | {
      readonly type: 'approval:resolved';
      readonly toolCallId: string;
      readonly approvalId: string;
      readonly tool: string;
      readonly decision: 'approved' | 'rejected' | 'denied';
      readonly approver: string | undefined;
    }
  | { readonly type: 'tool:start'; readonly step: number; readonly toolCallId: string; readonly tool: string }
  | {
      /** A running call's progress report (e.g. an MCP server's progress notification). */
      readonly type: 'tool:progress';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly progress: number;
      readonly total?: number;
      /** The tool's own sentence (a third party's for an MCP tool): internal, never projected. */
      readonly message?: string;
    }
  | {
      readonly type: 'tool:end';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly durationMs: number;
    }
  | {
      readonly type: 'tool:error';
      readonly step: number;
      readonly toolCallId: string;
      readonly tool: string;
      readonly stage: ToolErrorStage;
      readonly code: string;
      readonly retryable: boolean;
      readonly durationMs: number;
    }
  | { readonly type: 'heartbeat' };

/**
 * Not emitted by a run: the bus hands it to one subscriber that fell so far
 * behind that even must-deliver events could not be queued. It stands for
 * every event of the run from `fromSeq` to `toSeq` (both included) that this
 * subscriber did not get; its own `seq` is `toSeq`, so numbering continues.
 * Replay the range from the event log to fill it.
 */
export interface GapEventBody {
  readonly type: 'gap';
  readonly fromSeq: number;
  readonly toSeq: number;
}

export type AgentEventType = AgentEventBody['type'] | GapEventBody['type'];

/** One thing that happened in a run. A discriminated union on `type`. */
export type AgentEvent = (AgentEventBody | GapEventBody) & EventEnvelope;

/**
 * An event as its producer builds it for `RunEmitter.emitDraft`: the
 * envelope's fields first, with any values (`runId: '', seq: 0, at: 0`),
 * then the body's; the emitter writes the envelope in.
 *
 * @example
 * const draft: EventDraft = { runId: '', seq: 0, at: 0, type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order' };
 */
export type EventDraft = AgentEventBody & { runId: string; seq: number; at: number };

/** The event of a given type. */
export type AgentEventOf<Type extends AgentEventType> = Extract<AgentEvent, { type: Type }>;
