/**
 * Arbiter inside DBOS, against the real engine: DBOS workers started by the
 * test on a throwaway PostgreSQL (arbiter's tables in a fresh schema, DBOS's
 * system database beside them), the scripted model, runs started and
 * signalled through a `DBOSClient` as arbiter's API would. What happened is
 * read from the database: the effects, the model's calls, the audit, the
 * approvals, the run's event log.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DbosRunClient, dbosRunClient } from '../../src/dbos.js';
import { HttpError } from '../../src/errors/http-error.js';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { noteThroughUseChat, refundThroughApi, startEngineApi } from './engine-api.js';
import { bundleWorker, killAllWorkers, pollUntil, startWorker } from './engine-workers.js';
import {
  approveAs,
  auditOf,
  effectOf,
  expectGaplessEvents,
  expectWriteOnceAcrossKill,
  killing,
  modelCalls,
  noteRun,
  openArbiterWorld,
  pendingApproval,
  refundRun,
} from './engine-world.js';

const postgres = setUpPostgresCluster();
const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', `arbiter-dbos-${process.pid}`);
const applicationVersion = 'arbiter-runs-1';
let script: string;

beforeAll(async () => {
  script = await bundleWorker(join(import.meta.dirname, 'dbos-worker.ts'), cache);
}, 120_000);
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
});
afterEach(killAllWorkers, 60_000);

/** One test's world: a fresh schema for arbiter, a fresh DBOS system database, a client, DBOS workers. */
async function world() {
  const schema = postgres.freshSchema();
  const systemDatabaseUrl = postgres.connectionString.replace(/\/postgres$/, `/${schema}_dbos`);
  const arbiter = await openArbiterWorld({ connectionString: postgres.connectionString, schema });
  let client: DBOSClient | undefined;
  let runs: DbosRunClient | undefined;
  const start = async ({
    executorId,
    build = 'build-1',
    holdWrites = false,
  }: {
    executorId: string;
    build?: string;
    holdWrites?: boolean;
  }) => {
    const worker = await startWorker({
      name: `${executorId}/${build}`,
      script,
      environment: {
        ARBITER_URL: postgres.connectionString,
        ARBITER_SCHEMA: schema,
        DBOS_SYSTEM_URL: systemDatabaseUrl,
        DBOS_EXECUTOR_ID: executorId,
        WORKER_BUILD: build,
        HOLD_WRITES: holdWrites ? '1' : '0',
      },
    });
    // The first worker has made DBOS's system database; the client connects to it.
    client ??= await DBOSClient.create({ systemDatabaseUrl });
    runs ??= dbosRunClient({ client, appVersion: applicationVersion });
    return worker;
  };
  return {
    ...arbiter,
    start,
    get runs(): DbosRunClient {
      if (runs === undefined) throw new Error('start a worker first');
      return runs;
    },
    /** The workflow's status, as DBOS records it. */
    statusOf: async (runId: string) => (await client?.getWorkflow(runId))?.status,
    /** Which executor runs the workflow now, as DBOS records it. */
    executorOf: async (runId: string) => (await client?.getWorkflow(runId))?.executorId,
    close: async () => {
      await client?.destroy();
      await arbiter.close();
    },
  };
}

type World = Awaited<ReturnType<typeof world>>;

const approve = (world: World, approvalId: string, userId: string) =>
  approveAs(world, { approvalId, userId, resumeRun: (runId) => world.runs.resumeRun(runId) });

describe.skipIf(postgres.skip)('arbiter inside DBOS', () => {
  let current: World | undefined;
  const open = async () => {
    current = await world();
    return current;
  };
  afterEach(async () => {
    await killAllWorkers();
    await current?.close();
    current = undefined;
  }, 60_000);
  afterAll(killAllWorkers);

  it('completes a run with a read and a write tool', async () => {
    const world = await open();
    await world.start({ executorId: 'worker-a' });
    await world.runs.start(noteRun('run-plain'));
    const summary = await world.runs.result('run-plain');
    expect(summary.stopReason).toBe('completed');
    expect(summary.text).toBe('Noted gift wrap on SO20260902.');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'note:SO20260902:gift wrap' }]);
    expect((await modelCalls(world, 'run-plain')).map((call) => call.last_role)).toEqual(['user', 'tool', 'tool']);
    expect((await auditOf(world, 'run-plain', 'add_order_note')).map((row) => row.outcome)).toEqual(['ok']);
    const events = await expectGaplessEvents(world, 'run-plain');
    expect(events.at(-1)?.seq).toBe(summary.lastSeq);
    expect((await world.backend.serverRuns.find('run-plain'))?.status).toBe('completed');
  }, 300_000);

  it('runs a write cut short by SIGKILL once, and does not ask the model again for an answered step', async () => {
    const world = await open();
    const first = await world.start({ executorId: 'worker-a', holdWrites: true });
    await world.runs.start(noteRun('run-crash'));
    await expectWriteOnceAcrossKill({
      world,
      runId: 'run-crash',
      killFirst: killing(first),
      startSecond: async () =>
        (await world.start({ executorId: 'worker-a', build: 'build-1-restarted', holdWrites: true })).pid,
      result: () => world.runs.result('run-crash'),
    });
  }, 300_000);

  it('keeps an approval waiting across a restart and a new worker build; of two racing approvers one decides; the refund runs once', async () => {
    const world = await open();
    const first = await world.start({ executorId: 'worker-a' });
    await world.runs.start(refundRun('run-approval'));
    const approvalId = await pendingApproval(world, 'run-approval');
    // A deploy: the worker stops gracefully and the new build starts with the same application version.
    expect(await first.kill('SIGTERM')).toBe('0');
    await world.start({ executorId: 'worker-a', build: 'build-2' });
    const decided = await Promise.allSettled([
      approve(world, approvalId, 'manager-1'),
      approve(world, approvalId, 'manager-2'),
    ]);
    const taken = decided.filter((result) => result.status === 'fulfilled');
    const refused = decided.filter((result) => result.status === 'rejected');
    expect(taken).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const refusal = refused[0]?.status === 'rejected' ? refused[0].reason : undefined;
    expect(HttpError.isInstance(refusal) ? refusal.status : refusal).toBe(409);
    const summary = await world.runs.result('run-approval');
    expect(summary.stopReason).toBe('completed');
    expect(summary.text).toBe('Refunded order SO20260901.');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'refund:SO20260901' }]);
    const approvals = await world.query<{ status: string; approver: string }>(
      'SELECT status, approver FROM $schema.approvals WHERE run_id = $1',
      ['run-approval'],
    );
    expect(approvals).toHaveLength(1);
    expect(approvals[0]?.status).toBe('approved');
    const audit = await auditOf(world, 'run-approval', 'refund_order');
    expect(audit).toEqual([{ decision: 'approved', outcome: 'ok', approver: approvals[0]?.approver }]);
    expect((await modelCalls(world, 'run-approval')).map((call) => call.last_role)).toEqual(['user', 'tool', 'tool']);
    await expectGaplessEvents(world, 'run-approval');
  }, 300_000);

  it("hands a killed worker's write to the other worker, which completes it once", async () => {
    const world = await open();
    const workers = [
      await world.start({ executorId: 'worker-a', holdWrites: true }),
      await world.start({ executorId: 'worker-b', holdWrites: true }),
    ];
    await world.runs.start(noteRun('run-two-crash'));
    const { pid } = await effectOf(world, 'note:SO20260902:gift wrap');
    const dying = workers.find((worker) => worker.pid === pid);
    if (dying === undefined) throw new Error(`no worker has pid ${pid}`);
    const dyingExecutor = dying.name.split('/')[0] as string;
    await dying.kill('SIGKILL');
    const askedBefore = (await modelCalls(world, 'run-two-crash')).length;
    expect(await world.runs.takeOver(dyingExecutor)).toEqual(['run-two-crash']);
    const summary = await world.runs.result('run-two-crash');
    expect(summary.stopReason).toBe('completed');
    expect(await world.query('SELECT key FROM $schema.effects')).toHaveLength(1);
    const survivor = workers.find((worker) => worker !== dying);
    const asked = await modelCalls(world, 'run-two-crash');
    expect(asked.slice(askedBefore)).toEqual([{ last_role: 'tool', pid: survivor?.pid }]);
    expect((await auditOf(world, 'run-two-crash', 'add_order_note')).map((row) => row.outcome)).toEqual([
      'reconciled:ok',
    ]);
    await expectGaplessEvents(world, 'run-two-crash');
  }, 300_000);

  it('moves a run waiting for approval to the other worker when its worker stops, and completes it there once approved', async () => {
    const world = await open();
    const workers = [await world.start({ executorId: 'worker-a' }), await world.start({ executorId: 'worker-b' })];
    await world.runs.start(refundRun('run-two-approval'));
    const approvalId = await pendingApproval(world, 'run-two-approval');
    const holder = await pollUntil(() => world.executorOf('run-two-approval'), { what: "the run's executor" });
    const stopping = workers.find((worker) => worker.name.startsWith(`${holder}/`));
    if (stopping === undefined) throw new Error(`no worker runs as ${holder}`);
    expect(await stopping.kill('SIGTERM')).toBe('0');
    expect(await world.runs.takeOver(holder)).toEqual(['run-two-approval']);
    const other = holder === 'worker-a' ? 'worker-b' : 'worker-a';
    await pollUntil(async () => ((await world.executorOf('run-two-approval')) === other ? true : undefined), {
      what: `the run on ${other}`,
    });
    await approve(world, approvalId, 'manager-1');
    const summary = await world.runs.result('run-two-approval');
    expect(summary.stopReason).toBe('completed');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'refund:SO20260901' }]);
    expect((await auditOf(world, 'run-two-approval', 'refund_order')).map((row) => row.outcome)).toEqual(['ok']);
    await expectGaplessEvents(world, 'run-two-approval');
  }, 300_000);

  it("runs one run of a session at a time: the second waits on the session's partition until the first ends", async () => {
    const world = await open();
    const first = await world.start({ executorId: 'worker-a', holdWrites: true });
    const earlier = { ...noteRun('run-first'), sessionId: 'session-shared' };
    const later = { ...noteRun('run-second'), sessionId: 'session-shared' };
    await world.runs.start(earlier);
    await effectOf(world, 'note:SO20260902:gift wrap');
    await world.runs.start(later);
    // A run of another session, queued after it, starts: the queue was dispatched past the second run.
    await world.runs.start(refundRun('run-other'));
    await pollUntil(async () => ((await modelCalls(world, 'run-other')).length > 0 ? true : undefined), {
      what: "the other session's run to start",
    });
    // The first run holds its session's partition while its write executes: the second stays queued.
    expect(await world.statusOf('run-second')).toBe('ENQUEUED');
    expect(await modelCalls(world, 'run-second')).toEqual([]);
    await first.kill('SIGKILL');
    await world.start({ executorId: 'worker-a', build: 'build-1-restarted' });
    expect((await world.runs.result('run-first')).stopReason).toBe('completed');
    expect((await world.runs.result('run-second')).stopReason).toBe('completed');
    const order = await world.query<{ run_id: string }>('SELECT run_id FROM $schema.model_calls ORDER BY id');
    const lastOfFirst = order.map((row) => row.run_id).lastIndexOf('run-first');
    const firstOfSecond = order.map((row) => row.run_id).indexOf('run-second');
    expect(firstOfSecond).toBeGreaterThan(lastOfFirst);
  }, 300_000);

  it("runs the sessions of arbiter's API in DBOS: a refund streamed, approved across a deploy by one of two racing approvers (API and desk), run once; a note through useChat", async () => {
    const world = await open();
    await world.start({ executorId: 'worker-a' });
    const first = await world.start({ executorId: 'worker-b' });
    const api = await startEngineApi({
      world,
      connectionString: postgres.connectionString,
      engine: { name: 'dbos', runs: world.runs },
    });
    try {
      await refundThroughApi({
        api,
        world,
        tag: 'api-refund',
        whileWaiting: async () => {
          // A deploy of both workers while the run waits for a person.
          expect(await first.kill('SIGTERM')).toBe('0');
          await world.start({ executorId: 'worker-b', build: 'build-2' });
        },
      });
      await noteThroughUseChat({ api, world, tag: 'api-note' });
    } finally {
      await api.close();
    }
  }, 300_000);
});
