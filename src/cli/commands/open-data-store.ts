import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite/sqlite-store.js';

/**
 * Runs `work` on the store under `dataDirectory` (`arbiter.db`), or with
 * `undefined` when there is none yet: a read command never creates one.
 * The store is closed afterwards.
 *
 * @example
 * const result = await withDataStore({ dataDirectory: '.arbiter', work: (store) => (store === undefined ? empty() : list(store)) });
 */
export async function withDataStore<Result>({
  dataDirectory,
  work,
}: {
  dataDirectory: string;
  work: (store: SqliteStore | undefined, path: string) => Result | Promise<Result>;
}): Promise<Result> {
  const path = join(dataDirectory, 'arbiter.db');
  if (!existsSync(path)) return work(undefined, path);
  const store = openSqliteStore({ path });
  try {
    return await work(store, path);
  } finally {
    store.close();
  }
}
