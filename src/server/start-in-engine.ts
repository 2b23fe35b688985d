import type { ChatMessage } from '../core/chat-message.js';
import { type EngineRunClient, engineRunLease } from '../durable/run-in-engine.js';
import { SessionNotFoundError } from '../errors/session-not-found-error.js';
import type { PostgresServerRuns } from '../store/postgres/postgres-server-runs.js';
import type { SessionStore } from '../store/session-store.js';
import { timeOrderedId } from '../util/time-ordered-id.js';
import type { StartRunRequest } from './start-run-request.js';

/** Where a server starts its runs when they execute in a durable engine, not on its nodes. */
export interface ServerEngine {
  /** The engine's name: the runs' lease owner (`engine:NAME`), so no node claims them. */
  readonly name: string;
  /** The engine's runs, seen from outside its workers: `dbosRunClient(…)`, `restateRunClient(…)`. */
  readonly runs: EngineRunClient;
  /** How long the workers let a run wait for its approvals (their `approvalWaitMs`). Default seven days. */
  readonly approvalWaitMs?: number;
}

/**
 * Starts a session's run in a durable engine instead of on this node: the
 * user's message and the run's record (leased to the engine, so no node
 * claims it) are written in the transaction that marks the session's run
 * active, then the run is started in the engine with the conversation. The
 * engine's workers write its events to the event table (followed by every
 * node), append its messages to the session and end the session's run as
 * it ends. A session that already has a run is refused
 * (`SessionConflictError`, naming it), as on a node. When the engine cannot
 * be reached, the session's run is ended and its record marked failed
 * before the error reaches the caller: the session is free again.
 *
 * @example
 * const start = startInEngine({ engine: { name: 'dbos', runs: dbosRunClient({ client }) }, sessions, serverRuns });
 * const { runId } = await start({ sessionId, principal, content: 'Refund SO20260901', locale: 'en' });
 */
export function startInEngine({
  engine,
  sessions,
  serverRuns,
}: {
  engine: ServerEngine;
  sessions: SessionStore;
  serverRuns: PostgresServerRuns;
}): (request: StartRunRequest) => Promise<{ runId: string }> {
  const lease = engineRunLease({ engine: engine.name, approvalWaitMs: engine.approvalWaitMs });
  return async ({ sessionId, principal, content, locale }) => {
    const runId = timeOrderedId();
    const request: ChatMessage = { role: 'user', content };
    await sessions.beginRun({
      sessionId,
      runId,
      messages: [request],
      locale,
      inTransaction: (begun) =>
        serverRuns.insertWithin(
          { runId, sessionId, tenantId: principal.tenantId, principal, locale, messageOffset: begun.messageOffset },
          lease,
        ),
    });
    try {
      // The conversation as the begin left it: the user's message last.
      const session = await sessions.load(sessionId);
      if (session === undefined) throw new SessionNotFoundError({ sessionId });
      await engine.runs.start({ runId, sessionId, principal, messages: session.messages, locale });
    } catch (error) {
      await Promise.allSettled([
        sessions.endRun({ sessionId, runId, status: 'idle', lastSeq: 0 }),
        serverRuns.finish({
          runId,
          owner: lease.owner,
          status: 'error',
          failure: {
            code: 'engine_unavailable',
            message: `the run could not be started in ${engine.name}`,
            at: Date.now(),
            modelCall: undefined,
          },
        }),
      ]);
      throw error;
    }
    return { runId };
  };
}
