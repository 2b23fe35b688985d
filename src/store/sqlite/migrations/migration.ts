/**
 * One step of the runtime store's schema. Each runs once, in a transaction,
 * and is recorded in `schema_migrations`. Never edit a migration that has
 * shipped; add a new one.
 *
 * Each area owns a version range so areas can add tables independently:
 * core 1-9, gate 10-29, events 30-49, sessions 50-69, server 70-79, memory 80-89.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
