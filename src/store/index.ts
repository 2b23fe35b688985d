export { type Migration, migrations } from './migrations/index.js';
export type { RunRecord, RuntimeStore } from './runtime-store.js';
export { migrate, openSqliteStore, SqliteStore } from './sqlite-store.js';
