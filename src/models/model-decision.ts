import type { ModelErrorKind } from '../errors/model-error.js';

/**
 * What a resilient model did after one try:
 *
 * - `retry`: a transient failure; the same model is tried again after `delayMs`.
 * - `wait`: a 429; the model is tried again after `delayMs` (never less than
 *   the Retry-After) and the process-wide concurrency was lowered.
 * - `fallback`: retrying stopped helping; the next try goes to `nextModel`.
 * - `expand_output`: tool-call arguments were cut off at the output limit;
 *   tried once more with `maxOutputTokens` (or asked for shorter output).
 * - `give_up`: no further try. The error reaches the caller, except for
 *   `still_truncated`, where the truncated response is returned as it is.
 */
export type ModelDecisionKind = 'retry' | 'wait' | 'fallback' | 'expand_output' | 'give_up';

/** Why a resilient model stopped trying (one model, or altogether). */
export type ModelDecisionReason =
  /** A 400/401/403/404: the request or the configuration must change. */
  | 'not_retryable'
  /** The tries per model are spent. */
  | 'attempts_exhausted'
  /** Another wait would go past the call's waiting budget. */
  | 'wait_budget_exhausted'
  /** The endpoint asked to wait longer than the waiting budget has left. */
  | 'retry_after_too_long'
  /** The one retry of a truncated tool call was truncated again. */
  | 'still_truncated';

/**
 * One decision of a resilient model, reported as it is taken so the loop can
 * emit it as an event and a trace line. It carries no message text from the
 * endpoint: kinds, numbers and model names only.
 *
 * @example
 * const model = new ResilientModel({ primary, onDecision: (decision) => trace.push(decision) });
 */
export interface ModelDecision {
  readonly kind: ModelDecisionKind;
  /** The model whose try led to this decision. */
  readonly model: string;
  /** Tries on `model` in this call so far (1 = the first). */
  readonly attempt: number;
  /** Milliseconds waited before the next try; 0 when the next try is immediate or there is none. */
  readonly delayMs: number;
  /** The failure class, or `truncated` for tool-call arguments cut off at the output limit. */
  readonly errorKind: ModelErrorKind | 'truncated';
  /** The HTTP status, when the endpoint sent one. */
  readonly status: number | undefined;
  /** Set for `fallback` and `give_up`. */
  readonly reason: ModelDecisionReason | undefined;
  /** Set for `fallback`: the model tried next. */
  readonly nextModel: string | undefined;
  /** Set for `expand_output`: the output-token limit of the next try. */
  readonly maxOutputTokens: number | undefined;
  /** Set for `wait`: the lowered limit on model calls in flight. */
  readonly concurrencyLimit: number | undefined;
  /** True when the failed try had already streamed text to `onTextDelta`: a UI should drop that text. */
  readonly discardsStreamedText: boolean;
}
