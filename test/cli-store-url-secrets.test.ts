/**
 * No part of a store's password reaches the CLI's output, in any form a
 * connection string can carry it: the real `arbiter` process given
 * `--store` or `ARBITER_STORE_URL` with a password in the user info, in the
 * query (`password`, `sslpassword`, `options`), with a raw `@`, `#` or `/`,
 * behind a refused scheme, in a string that is no URL at all, or in a URL pg
 * cannot parse (which is one line naming the flag or variable, no stack);
 * and `serve`'s "listening on" line on a real PostgreSQL cluster.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../src/store/postgres/test-support/postgres-cluster.js';
import { runArbiter } from './support/run-arbiter.js';

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI with no debug stacks, whatever the test's own environment says. */
const arbiter = (args: readonly string[], environment: Record<string, string> = {}) =>
  runArbiter(args, { ARBITER_DEBUG: '', ...environment }, 90_000);

const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-url-secrets-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A port nothing listens on: bound once to learn a free one, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Every piece of a secret these tests plant is spelled with this mark: found anywhere in the output, it leaked. */
const mark = 'Zq7SECRET';

function expectNoSecret(ran: Ran): void {
  expect(`${ran.stdout}\n${ran.stderr}`).not.toContain(mark);
  // Nor its halves: a raw `@` once left the part after it visible.
  expect(`${ran.stdout}\n${ran.stderr}`).not.toMatch(/Zq7|SECRET/);
}

describe('a store URL with a password, in the CLI’s output', () => {
  let port: number;
  beforeAll(async () => {
    port = await closedPort();
  });

  it.each<[string, (port: number) => string]>([
    ['a password in the query', (port) => `postgres://app@127.0.0.1:${port}/db?password=${mark}`],
    [
      'sslpassword and options in the query',
      (port) => `postgres://app@127.0.0.1:${port}/db?sslmode=disable&sslpassword=${mark}&options=-c%20x%3D${mark}`,
    ],
    ['a raw @ in the password', (port) => `postgres://app:p@ss${mark}@127.0.0.1:${port}/db`],
    ['a percent-encoded password', (port) => `postgres://app:%40${mark}%23@127.0.0.1:${port}/db`],
    ['an IPv6 host', (port) => `postgres://app:${mark}@[::1]:${port}/db`],
    ['an @ inside a query password', (port) => `postgres://app@127.0.0.1:${port}/db?password=Zq7@SECRET`],
  ])('says "connection refused" with %s masked, naming --store and ARBITER_STORE_URL', async (_, shape) => {
    const url = shape(port);
    const byFlag = await arbiter(['approvals', '--store', url]);
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toMatch(/^arbiter: cannot open the store .* named by --store: connection refused/);
    expectNoSecret(byFlag);
    const byVariable = await arbiter(['sessions', 'list'], { ARBITER_STORE_URL: url });
    expect(byVariable.code).toBe(2);
    expect(byVariable.stderr).toContain('named by ARBITER_STORE_URL');
    expectNoSecret(byVariable);
  });

  it.each([
    ['a # in the password', `postgres://app:a#${mark}@127.0.0.1:5432/db`],
    ['a / in the password', `postgres://app:a/${mark}@127.0.0.1:5432/db`],
    ['port 99999', `postgres://app:${mark}@127.0.0.1:99999/db`],
  ])('answers a URL pg cannot parse (%s) with one line naming the flag, no stack', async (_, url) => {
    for (const [args, environment, source] of [
      [['approvals', '--store', url], {}, '--store'],
      [['audit'], { ARBITER_STORE_URL: url }, 'ARBITER_STORE_URL'],
      [['serve', '--port', '0', '--data-dir', dataDir, '--store', url], {}, '--store'],
    ] as const) {
      const ran = await arbiter(args, environment);
      expect(ran.code).toBe(2);
      expect(ran.stdout).toBe('');
      expect(ran.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(ran.stderr).toContain(`named by ${source}: not a valid URL`);
      expect(ran.stderr).not.toMatch(/TypeError|\n\s+at /);
      expectNoSecret(ran);
    }
  });

  it.each([
    ['a scheme it refuses', `postgresql+psycopg://app:${mark}@db/arbiter`, '"postgresql+psycopg://app:***@db/arbiter"'],
    ['a keyword/value string', `host=db user=app password=${mark}`, 'a value that is not a URL'],
    ['a bare password', mark, 'a value that is not a URL'],
  ])('refuses %s without echoing its password', async (_, url, said) => {
    for (const [args, environment, source] of [
      [['approvals', '--store', url], {}, '--store'],
      [['approve', 'ap_1', '--store', url], {}, '--store'],
      [['stats'], { ARBITER_STORE_URL: url }, 'ARBITER_STORE_URL'],
      [['serve', '--port', '0', '--data-dir', dataDir, '--store', url], {}, '--store'],
    ] as const) {
      const ran = await arbiter(args, environment);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`${source} must be a PostgreSQL connection string`);
      expect(ran.stderr).toContain(said);
      expectNoSecret(ran);
    }
  });
});

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('arbiter serve on a store whose URL holds a password', () => {
  /** Starts serve, reads its output up to "listening on", stops it with SIGTERM; resolves with all it printed. */
  function serveOnce(args: readonly string[], environment: Record<string, string> = {}): Promise<Ran> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, ...args],
        { env: { ...process.env, ARBITER_STORE_URL: '', ...environment }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        const listening = stdout.includes('listening on');
        stdout += chunk.toString();
        if (!listening && stdout.includes('listening on')) child.kill('SIGTERM');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it('says where it listens with the password masked, in the user info and in the query', async () => {
    // The throwaway cluster trusts every connection: whatever password the URL carries, it starts.
    const base = new URL(cluster.connectionString);
    const withUserinfo = `postgresql://postgres:${mark}@${base.host}${base.pathname}`;
    const withQuery = `postgresql://postgres@${base.host}${base.pathname}?sslmode=disable&password=${mark}`;
    const byFlag = await serveOnce(['--store', withUserinfo]);
    expect(byFlag.stdout).toContain(`(store postgresql://postgres:***@${base.host}${base.pathname}, model scripted)`);
    expectNoSecret(byFlag);
    const byVariable = await serveOnce([], { ARBITER_STORE_URL: withQuery });
    expect(byVariable.stdout).toContain(
      `(store postgresql://postgres@${base.host}${base.pathname}?sslmode=disable&password=***, model scripted)`,
    );
    expectNoSecret(byVariable);
  }, 300_000);
});
