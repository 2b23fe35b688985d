import type { Migration } from '../../sqlite/migrations/migration.js';
import { corePostgresMigrations } from './core-migrations.js';
import { eventPostgresMigrations } from './event-migrations.js';
import { gatePostgresMigrations } from './gate-migrations.js';
import { memoryPostgresMigrations } from './memory-migrations.js';
import { serverPostgresMigrations } from './server-migrations.js';
import { sessionPostgresMigrations } from './session-migrations.js';

/**
 * Every migration of the PostgreSQL backend, in version order. Each area
 * keeps SQLite's version range (core 1-9, gate 10-29, events 30-49,
 * sessions 50-69, server 70-79, memory 80-89); the first PostgreSQL migration of an area creates its
 * tables as SQLite's latest migrations left them.
 *
 * @example
 * await openPostgresBackend({ connectionString, migrations: [...postgresMigrations, myOwnMigration] });
 */
export const postgresMigrations: readonly Migration[] = [
  ...corePostgresMigrations,
  ...gatePostgresMigrations,
  ...eventPostgresMigrations,
  ...sessionPostgresMigrations,
  ...serverPostgresMigrations,
  ...memoryPostgresMigrations,
].sort((left, right) => left.version - right.version);
