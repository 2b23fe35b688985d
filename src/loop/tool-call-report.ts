import type { ToolOutcome } from '../core/tool-outcome.js';
import type { PendingApproval } from './pending-approval.js';

/**
 * What happened to one tool call, ready to become its tool message.
 *
 * @example
 * if (report.kind === 'done') answer(report.toolCallId, report.content);
 */
export type ToolCallReport =
  | {
      readonly kind: 'done';
      readonly toolCallId: string;
      readonly tool: string;
      readonly outcome: ToolOutcome;
      /** The tool message's content (an error worded by the run's `describeError`). */
      readonly content: string;
      /** Set when this call trips a brake that stops the run. */
      readonly brake?: 'repeated_call' | 'tool_failures';
    }
  /**
   * The run was stopped: before the tool started (`started: false`, nothing
   * happened), or while it ran and it gave up (`started: true`: it may have
   * acted, its outcome is unknown).
   */
  | { readonly kind: 'aborted'; readonly toolCallId: string; readonly tool: string; readonly started: boolean }
  /** Checked and allowed, but not run: an earlier call of the turn waits for a person (mode `check_only`). */
  | { readonly kind: 'held'; readonly toolCallId: string; readonly tool: string }
  /** The call waits for a person; nothing ran. The run stops with `awaiting_approval`. */
  | ({ readonly kind: 'pending_approval' } & PendingApproval);

/**
 * How far a call may go. `run`: all the way. `check_only`: an earlier call of
 * the turn waits for a person, so this one is checked (and its own approval
 * requested if it needs one) but not run; it runs on resume.
 *
 * @example
 * const report = await runToolCall(runtime, tools, call, step, pending.size > 0 ? 'check_only' : 'run');
 */
export type ToolCallMode = 'run' | 'check_only';
