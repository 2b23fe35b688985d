import { ArbiterError } from '../errors/arbiter-error.js';

const marker = Symbol.for('arbiter.error.undo');

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

/**
 * A recorded tool call could not be rolled back. `undo_failed` carries the
 * tool's own error as `cause`; every other failure changed nothing.
 *
 * @example
 * throw new UndoError({ toolCallId: 'call_3', failure: 'not_reversible', message: 'apply_refund cannot be undone' });
 */
export class UndoError extends ArbiterError {
  readonly code = 'undo' as const;
  readonly [marker] = true;
  readonly toolCallId: string;
  readonly failure: UndoFailure;
  readonly toolName: string | undefined;

  constructor({
    toolCallId,
    failure,
    toolName,
    message,
    cause,
  }: {
    toolCallId: string;
    failure: UndoFailure;
    toolName?: string;
    message: string;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.toolCallId = toolCallId;
    this.failure = failure;
    this.toolName = toolName;
  }

  static override isInstance(value: unknown): value is UndoError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
