/**
 * A child process for the concurrency test, started with an IPC channel
 * (`fork`): opens `connections` connections to one SQLite file and has each
 * append `appends` messages to one session, one per round. Half the
 * appenders name the version they read and retry themselves after a
 * conflict (a client that reads, thinks, then writes); the other half let
 * the store retry.
 *
 * The rounds are a barrier across all workers, kept by the parent: before
 * each round a worker loads the session on every connection that names a
 * version, sends `{ ready: round }` and writes only when the parent answers
 * `{ go: round }`, which it does once every worker is ready. So each round
 * holds exactly one write per appender, and every appender that names a
 * version read it before any write of the round: all but the first write
 * of a round find the session moved on. At the end it sends
 * `{ report: { clientConflicts, storeRetries } }`.
 *
 * fork(append-worker.ts, [DB, SESSION, PROCESS, CONNECTIONS, APPENDS], { execArgv: ['--import', 'tsx'] })
 */
import { SessionConflictError } from '../../../errors/session-conflict-error.js';
import { SqliteSessionStore } from '../sqlite-session-store.js';
import { openSqliteStore } from '../sqlite-store.js';

/** What the parent sends: the round every worker is ready for. */
export interface BarrierRelease {
  readonly go: number;
}

/** What a worker sends: ready for a round, or its counts at the end. */
export type WorkerMessage =
  | { readonly ready: number }
  | { readonly report: { readonly clientConflicts: number; readonly storeRetries: number } };

const [path, sessionId, processIndex, connectionsText, appendsText] = process.argv.slice(2);
const send = process.send?.bind(process);
if (path === undefined || sessionId === undefined || appendsText === undefined || send === undefined) {
  process.stderr.write(
    'usage: fork(append-worker, [DB, SESSION, PROCESS, CONNECTIONS, APPENDS]) with an IPC channel\n',
  );
  process.exit(2);
}
const connections = Number(connectionsText);
const appends = Number(appendsText);

const released = new Map<number, () => void>();
process.on('message', (message: BarrierRelease) => released.get(message.go)?.());
/** Waits until every worker has reached `round`. */
const barrier = (round: number) =>
  new Promise<void>((resolve) => {
    released.set(round, resolve);
    send({ ready: round } satisfies WorkerMessage);
  });

const stores = Array.from({ length: connections }, () => openSqliteStore({ path }));
const appenders = stores.map((store) => new SqliteSessionStore({ database: store.database }));
const namesVersion = (connection: number) => connection % 2 === 0;

let clientConflicts = 0;
for (let round = 0; round < appends; round += 1) {
  const reads = await Promise.all(
    appenders.map(async (sessions, connection) =>
      namesVersion(connection) ? ((await sessions.load(sessionId))?.version ?? 0) : undefined,
    ),
  );
  await barrier(round);
  await Promise.all(
    appenders.map(async (sessions, connection) => {
      const message = { role: 'user' as const, content: `p${processIndex}-c${connection}-m${round}` };
      let expectedVersion = reads[connection];
      if (expectedVersion === undefined) {
        await sessions.append({ sessionId, messages: [message] });
        return;
      }
      for (;;) {
        try {
          await sessions.append({ sessionId, messages: [message], expectedVersion });
          return;
        } catch (error) {
          if (!SessionConflictError.isInstance(error)) throw error;
          clientConflicts += 1;
          expectedVersion = (await sessions.load(sessionId))?.version ?? 0;
        }
      }
    }),
  );
}
const storeRetries = appenders.reduce((total, sessions) => total + sessions.conflictRetries, 0);
for (const store of stores) store.close();
send({ report: { clientConflicts, storeRetries } } satisfies WorkerMessage, () => process.disconnect());
