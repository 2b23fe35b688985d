import { coreMigrations } from './core-migrations.js';
import { eventMigrations } from './event-migrations.js';
import { gateMigrations } from './gate-migrations.js';
import { memoryMigrations } from './memory-migrations.js';
import type { Migration } from './migration.js';
import { serverMigrations } from './server-migrations.js';
import { sessionMigrations } from './session-migrations.js';

export type { Migration } from './migration.js';

/** Every migration of the runtime store, in version order. */
export const migrations: readonly Migration[] = [
  ...coreMigrations,
  ...gateMigrations,
  ...eventMigrations,
  ...sessionMigrations,
  ...serverMigrations,
  ...memoryMigrations,
].sort((left, right) => left.version - right.version);
