/**
 * Why a run stopped, as an enum a caller can switch on.
 *
 * - `completed`: the model answered without calling a tool.
 * - `max_steps`, `token_budget`, `cost_budget`, `deadline`: a budget ran out.
 * - `repeated_call`: the model asked for the same call a third time.
 * - `tool_failures`: the same tool failed twice in a row; hand off to a person.
 * - `aborted`: the caller's `AbortSignal` fired.
 * - `awaiting_approval`: a call waits for a person; the run can be resumed.
 * - `error`: an infrastructure failure (see `RunResult.error`).
 */
export const stopReasons = [
  'completed',
  'max_steps',
  'token_budget',
  'cost_budget',
  'deadline',
  'repeated_call',
  'tool_failures',
  'aborted',
  'awaiting_approval',
  'error',
] as const;

export type StopReason = (typeof stopReasons)[number];
