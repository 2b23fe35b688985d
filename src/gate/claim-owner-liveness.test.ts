/**
 * Whether the owner of a claim in flight is alive, judged from the store
 * alone: a live process in another PID namespace (two containers on one
 * host), or on a clock minutes away from the reader's, is never
 * reconciled; once it is killed, its key is reconciled and the call runs
 * once. Real processes, SQLite and PostgreSQL.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { setUpPostgresCluster } from '../store/postgres/test-support/postgres-cluster.js';
import { claimIdempotencyKey } from './claim-idempotency-key.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { openClaimChildStore } from './test-support/claim-child-store.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

const cluster = setUpPostgresCluster();
const directory = mkdtempSync(join(tmpdir(), 'arbiter-claim-liveness-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const holderScript = 'src/gate/test-support/claim-and-hang-child.ts';
const reporterScript = 'src/gate/test-support/claim-and-report-child.ts';
const elevenMinutes = 11 * 60 * 1000;
/** The lease the holding child renews its claim within: short, so a killed holder is judged gone soon. */
const holderLease = ['--lease-ms', '600'];

let files = 0;
const stores: { name: string; skip: boolean; location: () => string[] }[] = [
  {
    name: 'SQLite',
    skip: false,
    location: () => {
      files += 1;
      return ['sqlite', join(directory, `claims-${files}.db`)];
    },
  },
  {
    name: 'PostgreSQL',
    skip: cluster.skip,
    location: () => ['postgres', cluster.connectionString, cluster.freshSchema()],
  },
];

/** A resumed refund's claim of the fixture key through `store`: its answer, and what `reconcile` was asked. */
async function presentKey(store: IdempotencyStore) {
  const asked: string[] = [];
  const { runtime, call } = gatedCallFixture({
    runtime: { idempotency: store },
    tool: {
      idempotencyKey: (args) => `refund:${String(args.order_id)}:${String(args.amount_cents)}`,
      reconcile: (_args, key) => {
        asked.push(key);
        return { status: 'not_happened' };
      },
    },
  });
  const claim = await claimIdempotencyKey(runtime, { ...call, toolCallId: 'call_resumed' });
  if (claim?.status === 'claimed') await claim.complete({ ok: true, data: { refund_no: 'RF-second' } });
  return { status: claim?.status, asked };
}

interface Started {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** Resolves with the first line the child prints. */
  readonly firstLine: Promise<string>;
}

/** Starts `command` and reads its standard output line by line. */
function start(command: string, args: readonly string[]): Started {
  const child = spawn(command, args, { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const end = stdout.indexOf('\n');
      if (end !== -1) resolve(stdout.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`${command} exited (${code}) before a line: ${stderr}`)));
  });
  return { child, exited, firstLine };
}

const node = (script: string, args: readonly string[]) => [process.execPath, '--import', 'tsx', script, ...args];

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe.each(stores)('the owner of a claim in flight, judged on $name', ({ skip, location }) => {
  it.skipIf(skip)(
    'refuses without asking while the claiming process runs, and reconciles once it is killed',
    async () => {
      const where = location();
      const [command, ...args] = node(holderScript, [...where, ...holderLease]);
      const holder = start(command as string, args);
      children.push(holder.child);
      expect(await holder.firstLine).toBe('claimed');
      const backend = await openClaimChildStore(where);
      try {
        // Read again for the holder's lease: it keeps renewing, so it is alive.
        expect(await presentKey(backend.idempotency)).toEqual({ status: 'refused', asked: [] });
        holder.child.kill('SIGKILL');
        await holder.exited;
        expect(await presentKey(backend.idempotency)).toEqual({
          status: 'claimed',
          asked: ['refund:SO20260901:2000'],
        });
      } finally {
        await backend.close();
      }
    },
  );

  it.skipIf(skip)(
    'never reconciles a live claim whose claimant or reader runs on a clock eleven minutes off',
    async () => {
      const where = location();
      // The holder's clock eleven minutes behind, the reader's eleven minutes ahead: ages read on either clock lie.
      const [command, ...args] = node(holderScript, [
        ...where,
        ...holderLease,
        '--clock-offset-ms',
        `${-elevenMinutes}`,
      ]);
      const holder = start(command as string, args);
      children.push(holder.child);
      expect(await holder.firstLine).toBe('claimed');
      const ahead = await openClaimChildStore([...where, '--clock-offset-ms', `${elevenMinutes}`]);
      try {
        for (let attempt = 0; attempt < 2; attempt += 1) {
          expect(await presentKey(ahead.idempotency)).toEqual({ status: 'refused', asked: [] });
        }
        holder.child.kill('SIGKILL');
        await holder.exited;
        expect(await presentKey(ahead.idempotency)).toEqual({ status: 'claimed', asked: ['refund:SO20260901:2000'] });
        // Made once: every later claim replays it.
        expect(await presentKey(ahead.idempotency)).toEqual({ status: 'completed', asked: [] });
      } finally {
        await ahead.close();
      }
    },
  );
});

/** Whether this process may create PID namespaces (root with util-linux's unshare). */
function canUnsharePids(): boolean {
  if (process.getuid?.() !== 0) return false;
  return spawnSync('unshare', ['-pf', '--mount-proc', '--kill-child', 'true']).status === 0;
}
const unshareMissing = !canUnsharePids();
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (unshareMissing && !inCi) process.stdout.write('\nskipping the PID namespace tests: not root, or no unshare\n');

/**
 * `node script args` as the init of a new PID namespace. `padPids` processes
 * are started and ended there first, so the node's pid in its namespace is
 * one the other namespace does not have: a lookup there finds nobody.
 */
function inNewPidNamespace(script: string, args: readonly string[], padPids = 0): Started {
  const command = node(script, args)
    .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const pad = padPids === 0 ? '' : `i=0; while [ $i -lt ${padPids} ]; do /bin/true; i=$((i+1)); done; `;
  // Not exec'd: the shell stays the namespace's init (pid 1), and the node gets the pid after the padding.
  return start('unshare', ['-pf', '--mount-proc', '--kill-child', 'sh', '-c', `${pad}${command}`]);
}

describe.each(stores)('two processes in separate PID namespaces on one host, on $name', ({ skip, location }) => {
  it.skipIf(skip || (unshareMissing && !inCi))(
    'gives one refund: the second never reconciles the live first, and does once it is killed',
    async () => {
      const where = location();
      const holder = inNewPidNamespace(holderScript, [...where, ...holderLease], 200);
      children.push(holder.child);
      expect(await holder.firstLine).toBe('claimed');
      const whileAlive = inNewPidNamespace(reporterScript, where);
      children.push(whileAlive.child);
      expect(JSON.parse(await whileAlive.firstLine)).toEqual({ status: 'refused', asked: [] });
      expect(await whileAlive.exited).toBe(0);

      holder.child.kill('SIGKILL');
      await holder.exited;
      const afterKill = inNewPidNamespace(reporterScript, where);
      children.push(afterKill.child);
      expect(JSON.parse(await afterKill.firstLine)).toEqual({
        status: 'claimed',
        asked: ['refund:SO20260901:2000'],
      });
      expect(await afterKill.exited).toBe(0);
    },
    60_000,
  );
});
