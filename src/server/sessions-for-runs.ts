import type { BegunRun, EndRunRequest, SessionStore } from '../store/session-store.js';
import { isSqlProgram } from '../store/sql/sql-program.js';
import type { SessionEndOffer } from './run-session-ends.js';

/**
 * The session store as a server run sees it: the same store, with the
 * server's own record of the run kept in step with the session's.
 *
 * - `beginRun` also calls `onBegin` inside its transaction, so the server's
 *   record of the run (its `server_runs` row) commits together with the
 *   session's mark that the run is active, or not at all;
 * - `endRun` first awaits `beforeEnd` (the run's terminal event published,
 *   its final status written), so the server never knows less about a run
 *   than the session: a crash in between leaves a run the server saw end
 *   and a session still in it, which start-up recovery ends; with
 *   `offerEnd`, the session's end is first offered to the terminal event's
 *   own transaction, and written alone only when that did not write it;
 * - `journal` names the run `beginRun` began (not resumed) as new, so its
 *   recorded tool results are not read: nothing was stored for it.
 *
 * @example
 * const sessions = sessionsForRuns({ sessions: store, onBegin: (begun) => runs.insert({ ...begun, principal, locale }), beforeEnd: () => bus.idle() });
 * await runSession({ sessions, sessionId, userMessage: 'Where is my order?', model, tools });
 */
export function sessionsForRuns({
  sessions,
  onBegin = () => undefined,
  beforeEnd = async () => {},
  offerEnd = () => undefined,
}: {
  sessions: SessionStore;
  /**
   * Offers the session's end to the run's terminal event, before it is
   * awaited: when its transaction wrote it (`SessionEndOffer.settle`), it
   * is not written again.
   */
  offerEnd?: (request: EndRunRequest) => SessionEndOffer | undefined;
  /** Runs inside `beginRun`'s transaction (with the program it returns); a throw rolls the run's beginning back. */
  onBegin?: (begun: BegunRun) => unknown;
  /** Awaited before the session's run is ended. */
  beforeEnd?: () => Promise<void>;
}): SessionStore {
  /** The run this store's `beginRun` began (not resumed): its journal has no stored results to read. */
  let begunHere: string | undefined;
  return {
    create: (options) => sessions.create(options),
    load: (sessionId) => sessions.load(sessionId),
    list: (options) => sessions.list(options),
    append: (request) => sessions.append(request),
    setSlots: (request) => sessions.setSlots(request),
    getSlots: (sessionId) => sessions.getSlots(sessionId),
    fork: (request) => sessions.fork(request),
    purge: (request) => sessions.purge(request),
    beginRun: ({ inTransaction, ...request }) =>
      sessions.beginRun({
        ...request,
        inTransaction: (begun) => {
          begunHere = begun.resumed ? undefined : begun.runId;
          const first = inTransaction?.(begun);
          const second = onBegin(begun);
          if (!isSqlProgram(first)) return second;
          if (!isSqlProgram(second)) return first;
          return (function* () {
            yield* first;
            yield* second;
          })();
        },
      }),
    endRun: async (request) => {
      const offer = offerEnd(request);
      await beforeEnd();
      if (offer !== undefined && (await offer.settle())) return;
      await sessions.endRun(request);
    },
    // Never `endRunWithAnswer`: the run's end is offered to its terminal event (`offerEnd`), written with it.
    journal: ({ endRunWithAnswer: _ended, ...request }) =>
      sessions.journal(
        request.newRunId === undefined && begunHere !== undefined ? { ...request, newRunId: begunHere } : request,
      ),
  };
}
