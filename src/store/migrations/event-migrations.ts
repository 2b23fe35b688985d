import type { Migration } from './migration.js';

/** Events tables. Versions 30-49. */
export const eventMigrations: readonly Migration[] = [];
