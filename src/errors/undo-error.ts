import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.undo';
const symbol = Symbol.for(marker);

/** Why a call could not be undone. */
export type UndoFailure =
  | 'not_found'
  | 'not_executed'
  | 'already_undone'
  | 'unknown_tool'
  | 'not_reversible'
  | 'no_undo'
  | 'arguments_mismatch'
  | 'no_result'
  | 'undo_failed';

/** The failure with the facts its message names. */
export type UndoProblem =
  /** No audited call, or (with `runCount` above 1) one id audited in several runs. */
  | { failure: 'not_found'; runCount?: number }
  | { failure: 'not_executed' }
  | { failure: 'already_undone' | 'unknown_tool' | 'no_undo' | 'no_result' | 'arguments_mismatch'; toolName: string }
  | { failure: 'not_reversible'; toolName: string; sideEffect: string }
  | { failure: 'undo_failed'; toolName: string; cause: unknown };

function describe(toolCallId: string, problem: UndoProblem): string {
  switch (problem.failure) {
    case 'not_found':
      return problem.runCount !== undefined && problem.runCount > 1
        ? `tool call ${toolCallId} appears in ${problem.runCount} runs; name the run`
        : `no audited tool call ${toolCallId}`;
    case 'not_executed':
      return `tool call ${toolCallId} did not run`;
    case 'already_undone':
      return `tool call ${toolCallId} (${problem.toolName}) was already undone`;
    case 'unknown_tool':
      return `tool ${problem.toolName} is not registered here`;
    case 'not_reversible':
      return `${problem.toolName} is ${problem.sideEffect}, not reversible`;
    case 'no_undo':
      return `${problem.toolName} has no undo`;
    case 'no_result':
      return `the arguments or result of ${toolCallId} were not kept in a session`;
    case 'arguments_mismatch':
      return `the stored arguments of ${toolCallId} do not match what was audited`;
    case 'undo_failed':
      return `undoing ${toolCallId} (${problem.toolName}) failed`;
  }
}

/**
 * A recorded tool call could not be rolled back. `undo_failed` carries the
 * tool's own error as `cause`; every other failure changed nothing. The
 * message is composed from the failure and the facts it names.
 *
 * @example
 * throw new UndoError({ toolCallId: 'call_3', failure: 'not_reversible', toolName: 'apply_refund', sideEffect: 'irreversible' });
 * // message: "apply_refund is irreversible, not reversible"
 */
export class UndoError extends ArbiterError {
  readonly code = 'undo' as const;
  readonly [symbol] = true;
  readonly toolCallId: string;
  readonly failure: UndoFailure;
  readonly toolName: string | undefined;

  constructor(options: { toolCallId: string } & UndoProblem) {
    super(describe(options.toolCallId, options), 'cause' in options ? { cause: options.cause } : {});
    this.toolCallId = options.toolCallId;
    this.failure = options.failure;
    this.toolName = 'toolName' in options ? options.toolName : undefined;
  }

  static override isInstance(error: unknown): error is UndoError {
    return ArbiterError.hasMarker(error, marker);
  }
}
