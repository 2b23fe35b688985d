import { randomUUID } from 'node:crypto';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import type { SessionStore } from '../store/session-store.js';
import { type RunAgentOptions, type RunResult, runAgent } from './run-agent.js';

export type RunSessionOptions = Omit<RunAgentOptions, 'messages' | 'sessionId' | 'runId' | 'resume' | 'journal'> & {
  readonly sessions: SessionStore;
  readonly sessionId: string;
} & (
    | {
        /** Starts a new run with this user message. */
        readonly userMessage: string;
        readonly resume?: never;
      }
    | {
        /**
         * Continues the session's active run from its last committed step: after
         * a crash, or once its approvals are decided. Its counters, recorded
         * tool results and event numbering carry over.
         */
        readonly resume: true;
        readonly userMessage?: never;
      }
  );

/**
 * Runs the agent on a stored session: every step is committed to the
 * store as it happens, so a new process can continue the run (`resume:
 * true`) with nothing lost and nothing executed twice.
 *
 * @example
 * const first = await runSession({ sessions, sessionId, userMessage: 'Refund order SO20260902', model, tools, approvals });
 * // ... later, perhaps in another process, after a person approved:
 * const second = await runSession({ sessions, sessionId, resume: true, model, tools, approvals });
 */
export async function runSession(options: RunSessionOptions): Promise<RunResult> {
  const { sessions, sessionId, userMessage, resume, ...runOptions } = options;
  const session = await sessions.load(sessionId);
  if (session === undefined)
    throw new SessionConflictError({ sessionId, message: `session ${sessionId} does not exist` });
  if (resume === true) {
    const active = session.activeRun;
    if (active === undefined) {
      throw new SessionConflictError({ sessionId, message: `session ${sessionId} has no run to resume` });
    }
    // Fenced on what was read: a second process resuming the same run at once is refused, not doubled.
    await sessions.beginRun({ sessionId, runId: active.runId, expectedVersion: session.version });
    const journal = sessions.journal({ sessionId, expectedMessageCount: session.messages.length });
    const result = await runAgent({
      ...runOptions,
      pinned: { slots: session.slots, ...runOptions.pinned },
      messages: session.messages,
      sessionId,
      runId: active.runId,
      journal,
      resume: active,
    });
    await settleRun({ sessions, sessionId, result });
    return result;
  }

  const runId = randomUUID();
  const message = { role: 'user' as const, content: userMessage ?? '' };
  // The run and its request are one write: a crash cannot leave a run without the message it answers.
  await sessions.beginRun({ sessionId, runId, messages: [message], expectedVersion: session.version });
  const journal = sessions.journal({ sessionId, expectedMessageCount: session.messages.length + 1 });
  const result = await runAgent({
    ...runOptions,
    pinned: { slots: session.slots, ...runOptions.pinned },
    messages: [...session.messages, message],
    sessionId,
    runId,
    journal,
  });
  await settleRun({ sessions, sessionId, result });
  return result;
}

async function settleRun({
  sessions,
  sessionId,
  result,
}: {
  sessions: SessionStore;
  sessionId: string;
  result: RunResult;
}): Promise<void> {
  // A process whose writes were refused as stale has lost the run to a newer one: it must not end that run.
  if (SessionConflictError.isInstance(result.error?.cause)) return;
  await sessions.endRun({
    sessionId,
    runId: result.runId,
    status: result.stopReason === 'awaiting_approval' ? 'awaiting_approval' : 'idle',
    lastSeq: result.lastSeq,
  });
}
