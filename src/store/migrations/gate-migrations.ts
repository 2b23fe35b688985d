import type { Migration } from './migration.js';

/** Gate tables. Versions 10-29. */
export const gateMigrations: readonly Migration[] = [];
