import type { Awaitable } from '../core/awaitable.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { StepCommit } from '../core/run-journal.js';
import type { Mutable } from '../util/mutable.js';
import type { RunProgress } from './run-progress.js';
import type { RunRuntime } from './run-runtime.js';
import { totalUsage } from './total-usage.js';

/**
 * Appends messages to the conversation and commits them to the journal
 * with the run's counters, so a restart continues from here. With
 * `rerunnable` (the messages only answer calls that changed nothing) the
 * journal may write them with its next commit; with `endsRun` (an answer
 * that calls no tool: the run's last commit) it may end the run with it.
 *
 * @example
 * await commitStep(runtime, progress, [assistantMessage]);
 */
export function commitStep(
  runtime: RunRuntime,
  progress: RunProgress,
  messages: readonly ChatMessage[],
  { rerunnable = false, endsRun = false }: { rerunnable?: boolean; endsRun?: boolean } = {},
): Awaitable<void> {
  progress.conversation.push(...messages);
  const commit: Mutable<StepCommit> = {
    runId: runtime.runId,
    sessionId: runtime.sessionId,
    appended: messages,
    steps: progress.steps,
    usage: totalUsage(progress),
    cost: progress.cost,
    lastSeq: runtime.emitter.lastSeq,
  };
  if (rerunnable) commit.rerunnable = true;
  if (endsRun) commit.endsRun = true;
  // The journal's own answer, not an async wrapper's: a synchronous journal (memory, SQLite) costs no promise here.
  return runtime.journal.commitStep(commit);
}
