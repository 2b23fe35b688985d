/**
 * Arbiter's server on PostgreSQL, for many nodes on one database (what
 * `arbiter serve --store postgres://…` runs): `createPostgresServer`,
 * `startPostgresServer`; with `engine`, its runs execute in a durable
 * engine's workers (DBOS, Restate, Temporal) while its nodes keep the API,
 * the desk, the approval checks and the streams. Loads `pg` and the
 * server's packages (and SQLite's binding with the server's code).
 *
 * @example
 * import { startPostgresServer } from '@arbiter-runtime/core/postgres-server';
 *
 * @module
 */
export { createPostgresServer, type PostgresServerOptions, startPostgresServer } from './server/postgres-server.js';
export { type ServerEngine, startInEngine } from './server/start-in-engine.js';
export type { StartRunRequest } from './server/start-run-request.js';
