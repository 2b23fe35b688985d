/**
 * Child process for the killed-while-checkpointing test: opens the store
 * with its WAL checkpointed in the background at once and as often as it
 * can, then commits numbered rows one transaction each (each a few pages,
 * so the WAL keeps growing and the thread keeps copying), printing
 * `writing` once the thread has started, until it is killed.
 * Usage: node --import tsx src/store/sqlite/test-support/checkpoint-child.ts DB_PATH
 */
import { openSqliteStore } from '../sqlite-store.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: checkpoint-child.ts DB_PATH');
const store = openSqliteStore({ path, checkpoints: { startAfterMs: 0, busyIntervalMs: 0, idleIntervalMs: 1 } });
const { database } = store;
database.exec('CREATE TABLE IF NOT EXISTS numbered (n INTEGER PRIMARY KEY, body TEXT NOT NULL)');
const insert = database.prepare('INSERT INTO numbered (n, body) VALUES (?, ?)');
const commit = database.transaction((n: number) => insert.run(n, `row ${n} `.repeat(300)));
let announced = false;
let n = 0;
const write = () => {
  for (let index = 0; index < 50; index += 1) {
    n += 1;
    commit(n);
  }
  if (!announced && store.checkpointer?.running === true && n > 500) {
    announced = true;
    process.stdout.write('writing\n');
  }
  setImmediate(write);
};
write();
