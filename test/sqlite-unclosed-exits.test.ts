/**
 * A library user's script that opens the SQLite backend and never calls
 * `close()` still exits once its own work is done: the WAL checkpointer's
 * thread (started about a second after opening) must not keep the process
 * alive.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const directory = mkdtempSync(join(tmpdir(), 'arbiter-unclosed-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('openSqliteBackend without close()', () => {
  it('lets the process exit after the checkpoint thread has started', async () => {
    const script = join(directory, 'unclosed.mts');
    writeFileSync(
      script,
      [
        `import { openSqliteBackend } from ${JSON.stringify(join(process.cwd(), 'src/sqlite.ts'))};`,
        `const backend = openSqliteBackend({ path: ${JSON.stringify(join(directory, 'data', 'arbiter.db'))} });`,
        'void backend;',
        // Well past the checkpointer's first tick (1 s after opening): its thread is running.
        'await new Promise((resolve) => setTimeout(resolve, 2500));',
        "process.stdout.write('done\\n');",
        '',
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = await new Promise<{ code: number | null; hung: boolean }>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve({ code: null, hung: true });
      }, 20_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, hung: false });
      });
    });
    expect({ ...exited, output }).toEqual({ code: 0, hung: false, output: 'done\n' });
  }, 30_000);
});
