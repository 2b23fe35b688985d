import { describe, expect, it } from 'vitest';
import { SqliteEventLog } from './sqlite-event-log.js';
import { openSqliteStore } from './sqlite-store.js';

// What every event log does is in the EventLog contract (sqlite-backend.contract.test.ts).
describe('SqliteEventLog', () => {
  it('writes into the table the store’s migrations create (run_events, migration 30)', () => {
    const store = openSqliteStore({ path: ':memory:' });
    new SqliteEventLog({ database: store.database }).append([{ type: 'run:start', runId: 'r1', seq: 1, at: 1 }]);
    expect(store.schemaVersion).toBeGreaterThanOrEqual(30);
    expect(store.database.prepare('SELECT COUNT(*) AS events FROM run_events').get()).toEqual({ events: 1 });
    store.close();
  });
});
