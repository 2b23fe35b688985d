export type { EventLog, ReadEventsOptions } from '../events/event-log.js';
export { isStoreBusy, retryWhileBusy } from '../util/retry-while-busy.js';
export { type Migration, migrations } from './migrations/index.js';
export type { RunRecord, RuntimeStore } from './runtime-store.js';
export type { ActiveRun, BegunRun, Session, SessionStatus, SessionStore, SessionSummary } from './session-store.js';
export { SqliteEventLog } from './sqlite-event-log.js';
export { SqliteSessionStore } from './sqlite-session-store.js';
export { migrate, openSqliteStore, SqliteStore } from './sqlite-store.js';
