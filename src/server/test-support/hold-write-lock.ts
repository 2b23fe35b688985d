import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** A child process holding an SQLite database's write lock until `release`. */
export interface WriteLockHolder {
  /** Commits the holder's transaction (its write lands) and waits for the process to exit. */
  release(): Promise<void>;
}

/** Runs in the child: opens the database, takes the write lock with a write, and keeps it until told. */
const holderSource = `
const Database = require('better-sqlite3');
const database = new Database(process.argv[1]);
database.exec('BEGIN EXCLUSIVE');
database.exec('CREATE TABLE IF NOT EXISTS lock_holder_writes (at INTEGER NOT NULL)');
database.prepare('INSERT INTO lock_holder_writes (at) VALUES (?)').run(Date.now());
process.stdout.write('locked\\n');
process.stdin.once('data', () => {
  database.exec('COMMIT');
  database.close();
  process.exit(0);
});
`;

/**
 * Starts another process that holds `path`'s write lock (`BEGIN EXCLUSIVE`
 * plus a write, uncommitted) and resolves once it has it: every write of
 * any other connection finds the database busy until `release`.
 *
 * @example
 * const holder = await holdWriteLock({ path: join(dataDir, 'arbiter.db') });
 * // … writes get SQLITE_BUSY …
 * await holder.release();
 */
export async function holdWriteLock({ path }: { path: string }): Promise<WriteLockHolder> {
  const child = spawn(process.execPath, ['-e', holderSource, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code} before taking the lock`)));
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
  });
  return {
    release: async () => {
      child.stdin.write('release\n');
      await exited;
    },
  };
}
