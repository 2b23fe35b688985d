/**
 * A child process for the concurrency test: opens `connections` connections
 * to one SQLite file and has each append `appends` messages to one session,
 * all at once. Half the appenders name the version they read and retry
 * themselves after a conflict (a client that reads, thinks, then writes);
 * the other half let the store retry. Prints one JSON line: the conflicts
 * seen by each kind.
 *
 * node --import tsx append-worker.ts DB SESSION PROCESS CONNECTIONS APPENDS START_AT
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionConflictError } from '../../errors/session-conflict-error.js';
import { SqliteSessionStore } from '../sqlite-session-store.js';
import { openSqliteStore } from '../sqlite-store.js';

const [path, sessionId, processIndex, connectionsText, appendsText, startAtText] = process.argv.slice(2);
if (path === undefined || sessionId === undefined || startAtText === undefined) {
  process.stderr.write('usage: append-worker DB SESSION PROCESS CONNECTIONS APPENDS START_AT\n');
  process.exit(2);
}
const connections = Number(connectionsText);
const appends = Number(appendsText);

const stores = Array.from({ length: connections }, () => openSqliteStore({ path }));
const appenders = stores.map((store) => new SqliteSessionStore({ database: store.database }));
await sleep(Math.max(0, Number(startAtText) - Date.now()));

let clientConflicts = 0;
await Promise.all(
  appenders.map(async (sessions, connection) => {
    const explicit = connection % 2 === 0;
    for (let index = 0; index < appends; index += 1) {
      const message = { role: 'user' as const, content: `p${processIndex}-c${connection}-m${index}` };
      if (!explicit) {
        await sleep(Math.random() * 2);
        await sessions.append({ sessionId, messages: [message] });
        continue;
      }
      for (;;) {
        const read = await sessions.load(sessionId);
        await sleep(Math.random() * 2);
        try {
          await sessions.append({ sessionId, messages: [message], expectedVersion: read?.version ?? 0 });
          break;
        } catch (error) {
          if (!SessionConflictError.isInstance(error)) throw error;
          clientConflicts += 1;
        }
      }
    }
  }),
);
const storeRetries = appenders.reduce((total, sessions) => total + sessions.conflictRetries, 0);
for (const store of stores) store.close();
process.stdout.write(`${JSON.stringify({ clientConflicts, storeRetries })}\n`);
