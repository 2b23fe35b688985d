import type { Awaitable } from '../core/awaitable.js';
import { RunHandedOverError } from '../errors/run-handed-over-error.js';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import { SessionNotFoundError } from '../errors/session-not-found-error.js';
import type { Session, SessionStore } from '../store/session-store.js';
import { timeOrderedId } from '../util/time-ordered-id.js';
import { type RunAgentOptions, type RunResult, runAgent } from './run-agent.js';

export type RunSessionOptions = Omit<RunAgentOptions, 'messages' | 'sessionId' | 'runId' | 'resume' | 'journal'> & {
  readonly sessions: SessionStore;
  readonly sessionId: string;
  /**
   * Where the run's events are persisted, if they are: a resumed run goes on
   * numbering after the last one logged (events after the last commit survive a crash there).
   */
  readonly eventLog?: { lastSeq(runId: string): Awaitable<number> };
  /**
   * The approvals a run's logged events announced (`approval:required`),
   * read when the run is resumed: a pending approval missing from them is
   * announced again. Default: none known, so every approval the resumed run
   * stops on again is announced again.
   */
  readonly announcedApprovals?: (runId: string) => Awaitable<Iterable<string>>;
  /**
   * The session as the caller has just read it (`sessions.load`), so it is
   * not read again. The run begins fenced on its version all the same: a
   * session changed since is refused (`SessionConflictError`), never overwritten.
   */
  readonly loaded?: Session;
} & (
    | {
        /** Starts a new run with this user message. */
        readonly userMessage: string;
        /** The new run's id, so the caller knows it before the run begins. Default: a fresh time-ordered UUID (`timeOrderedId`). */
        readonly runId?: string;
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
        /** A resumed run keeps the id of the session's active run. */
        readonly runId?: never;
      }
  );

/**
 * Runs the agent on a stored session: every step is committed to the
 * store as it happens, so a new process can continue the run (`resume:
 * true`) with nothing lost and nothing executed twice.
 *
 * @example
 * const first = await runSession({ sessions, sessionId, userMessage: 'Refund order SO20260902', runId: timeOrderedId(), model, tools, approvals });
 * // ... later, perhaps in another process, after a person approved:
 * const second = await runSession({ sessions, sessionId, resume: true, model, tools, approvals });
 */
export async function runSession(options: RunSessionOptions): Promise<RunResult> {
  const {
    sessions,
    sessionId,
    userMessage,
    resume,
    eventLog,
    announcedApprovals,
    runId: requestedRunId,
    loaded,
    ...runOptions
  } = options;
  const session = loaded?.id === sessionId ? loaded : await sessions.load(sessionId);
  if (session === undefined) {
    throw new SessionNotFoundError({ sessionId });
  }
  const active = session.activeRun;
  if (resume === true && active === undefined) {
    throw new SessionConflictError({ sessionId, conflict: { kind: 'no_run_to_resume' } });
  }
  const runId = resume === true && active !== undefined ? active.runId : (requestedRunId ?? timeOrderedId());
  const request = resume === true ? [] : [{ role: 'user' as const, content: userMessage ?? '' }];
  // Fenced on what was read, and the run begins together with its request in one write: a second
  // process resuming the same run is refused, and a crash cannot leave a run without its message.
  await sessions.beginRun({
    sessionId,
    runId,
    // Recorded with a new run (a resumed one keeps its own): whoever resumes it continues in them.
    locale: runOptions.locale ?? 'en',
    model: runOptions.model.name,
    expectedVersion: session.version,
    ...(request.length === 0 ? {} : { messages: request }),
  });
  const messages = [...session.messages, ...request];
  // The run ends `idle` after its answer (below): a journal that can ends it in the answer's own transaction.
  const journal = sessions.journal({
    sessionId,
    expectedMessageCount: messages.length,
    // An id made here for a new run has no stored tool results, so the journal does not read them (one query a
    // run). A caller's id may be the session's active run, which `beginRun` resumes, with results stored: read them.
    ...(resume !== true && requestedRunId === undefined ? { newRunId: runId } : {}),
    endRunWithAnswer: true,
  });
  let result: RunResult | undefined;
  let handedOver = false;
  try {
    const resumed = resume === true && active !== undefined;
    const loggedSeq = resumed ? ((await eventLog?.lastSeq(runId)) ?? 0) : 0;
    const announced = new Set(resumed ? ((await announcedApprovals?.(runId)) ?? []) : []);
    const own = {
      pinned: { slots: session.slots, ...runOptions.pinned },
      messages,
      sessionId,
      runId,
      journal,
      ...(resumed && active !== undefined
        ? { resume: { ...active, lastSeq: Math.max(active.lastSeq, loggedSeq), announcedApprovals: announced } }
        : {}),
    };
    // The caller's options, then these over them, as `{ ...runOptions, pinned, … }` would: V8 defines each key written
    // after a spread in a literal through a runtime call, about 6k instructions a key each time (issue 48).
    result = await runAgent(Object.assign({}, runOptions, own));
    return result;
  } catch (error) {
    handedOver = RunHandedOverError.isInstance(error);
    throw error;
  } finally {
    // A process whose writes were refused as stale has lost the run to a newer one: it must not end that run;
    // a run handed over stays the session's active run, for whoever resumes it; one its journal ended is ended.
    if (!handedOver && !SessionConflictError.isInstance(result?.error?.cause) && journal.runEnded !== true) {
      await sessions.endRun({
        sessionId,
        runId,
        status: result?.stopReason === 'awaiting_approval' ? 'awaiting_approval' : 'idle',
        lastSeq: result?.lastSeq ?? active?.lastSeq ?? 0,
      });
    }
  }
}
