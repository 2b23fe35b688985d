/**
 * `arbiter serve --store postgres://…` stops on a SIGTERM sent as soon as it
 * says "listening on", as a SQLite server does: the run lease keeper's
 * listener, still opening then, is closed once it is open instead of holding
 * a pool connection (and the process) forever.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../src/store/postgres/test-support/postgres-cluster.js';

const cluster = setUpPostgresCluster();
const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-serve-stop-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** How long a stopping server may take before the test gives up on it: far more than a stop needs. */
const patienceMs = 30_000;
/** How long a server may take to start on a loaded machine. */
const startupMs = 90_000;

/** Starts `serve --store URL`, sends SIGTERM on its "listening on" line; resolves with how it ended. */
function serveThenTerminate(url: string): Promise<{ code: number | null; signal: string | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--store', url],
    { env: { ...process.env, ARBITER_STORE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    let waiting: ReturnType<typeof setTimeout> | undefined;
    const giveUpAfter = (ms: number, what: string) => {
      clearTimeout(waiting);
      waiting = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`serve ${what} after ${ms} ms:\n${output}`));
      }, ms);
    };
    giveUpAfter(startupMs, 'did not say "listening on"');
    const take = (chunk: Buffer) => {
      const listening = output.includes('listening on');
      output += chunk.toString();
      if (!listening && output.includes('listening on')) {
        child.kill('SIGTERM');
        giveUpAfter(patienceMs, 'was still running');
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(waiting);
      resolve({ code, signal, output });
    });
  });
}

describe.skipIf(cluster.skip)('arbiter serve --store postgres://… and SIGTERM', () => {
  it(
    'stops on a SIGTERM sent right after "listening on", three times in a row',
    async () => {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const ended = await serveThenTerminate(cluster.connectionString);
        expect(ended.output).toContain('listening on');
        // A cluster node names itself at start (a generated id when --node-id is not given).
        expect(ended.output).toMatch(/arbiter serve: node [0-9a-f-]{36}\n/);
        expect(ended.output).toContain('arbiter serve: stopping…');
        expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 0, signal: null });
      }
    },
    3 * (startupMs + patienceMs),
  );
});
