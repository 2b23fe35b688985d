/**
 * Arbiter inside Restate, against the real engine: a `restate-server`
 * (npm's binary, 127.0.0.1 only) and Restate workers started by the test on
 * a throwaway PostgreSQL for arbiter's tables, the scripted model, runs
 * started and signalled through Restate's ingress as arbiter's API would.
 * Two workers stand behind one deployment through a TCP balancer, as behind
 * a load balancer. What happened is read from the database.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as clients from '@restatedev/restate-sdk-clients';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DurableRunInput } from '../../src/durable/run-in-engine.js';
import { HttpError } from '../../src/errors/http-error.js';
import { type RestateRunClient, restateRunClient } from '../../src/restate.js';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { noteThroughUseChat, refundThroughApi, startEngineApi } from './engine-api.js';
import { bundleWorker, killAllWorkers, startWorker, type Worker } from './engine-workers.js';
import {
  approveAs,
  auditOf,
  effectOf,
  expectGaplessEvents,
  expectWriteOnceAcrossKill,
  modelCalls,
  noteRun,
  openArbiterWorld,
  pendingApproval,
  refundRun,
} from './engine-world.js';
import { freePort, type RestateServer, startBalancer, startRestateServer } from './restate-server.js';

const postgres = setUpPostgresCluster();
const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', `arbiter-restate-${process.pid}`);
let script: string;

beforeAll(async () => {
  script = await bundleWorker(join(import.meta.dirname, 'restate-worker.ts'), cache);
}, 120_000);
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
});

/** One test's world: a fresh schema for arbiter, a fresh restate-server, a balancer in front of the workers. */
async function world() {
  const schema = postgres.freshSchema();
  const arbiter = await openArbiterWorld({ connectionString: postgres.connectionString, schema });
  const server: RestateServer = await startRestateServer();
  const balancer = await startBalancer();
  const runs: RestateRunClient = restateRunClient({ ingress: clients.connect({ url: server.ingressUrl }) });
  const live = new Map<number, Worker>();
  const start = async ({
    port,
    build = 'build-1',
    holdWrites = false,
  }: {
    port?: number;
    build?: string;
    holdWrites?: boolean;
  } = {}) => {
    const workerPort = port ?? (await freePort());
    const worker = await startWorker({
      name: `${workerPort}/${build}`,
      script,
      environment: {
        ARBITER_URL: postgres.connectionString,
        ARBITER_SCHEMA: schema,
        WORKER_PORT: String(workerPort),
        WORKER_BUILD: build,
        HOLD_WRITES: holdWrites ? '1' : '0',
      },
    });
    live.set(workerPort, worker);
    balancer.setTargets([...live.keys()]);
    // A deploy registers the deployment again: the same address, the new build behind it.
    await server.register(balancer.url);
    return { worker, port: workerPort };
  };
  const stop = async (port: number, signal: 'SIGKILL' | 'SIGTERM') => {
    const worker = live.get(port);
    if (worker === undefined) throw new Error(`no worker on ${port}`);
    live.delete(port);
    balancer.setTargets([...live.keys()]);
    return worker.kill(signal);
  };
  return {
    ...arbiter,
    runs,
    start,
    stop,
    /** The worker ports serving an invocation now. */
    busyPorts: () => balancer.busyPorts(),
    close: async () => {
      await killAllWorkers();
      await balancer.stop();
      await server.stop();
      await arbiter.close();
    },
  };
}

type World = Awaited<ReturnType<typeof world>>;

const approve = (world: World, approvalId: string, userId: string) =>
  approveAs(world, { approvalId, userId, resumeRun: (runId) => world.runs.resumeRun(runId) });

const result = (world: World, input: DurableRunInput) => world.runs.result(input);

describe.skipIf(postgres.skip)('arbiter inside Restate', () => {
  let current: World | undefined;
  const open = async () => {
    current = await world();
    return current;
  };
  afterEach(async () => {
    await current?.close();
    current = undefined;
  }, 60_000);
  afterAll(killAllWorkers);

  it('completes a run with a read and a write tool', async () => {
    const world = await open();
    await world.start();
    const input = noteRun('run-plain');
    await world.runs.start(input);
    const summary = await result(world, input);
    expect(summary.stopReason).toBe('completed');
    expect(summary.text).toBe('Noted gift wrap on SO20260902.');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'note:SO20260902:gift wrap' }]);
    expect((await modelCalls(world, 'run-plain')).map((call) => call.last_role)).toEqual(['user', 'tool', 'tool']);
    expect((await auditOf(world, 'run-plain', 'add_order_note')).map((row) => row.outcome)).toEqual(['ok']);
    const events = await expectGaplessEvents(world, 'run-plain');
    expect(events.at(-1)?.seq).toBe(summary.lastSeq);
    // Starting the same run again (a retried request) is the same invocation: nothing runs twice.
    await world.runs.start(input);
    expect((await result(world, input)).lastSeq).toBe(summary.lastSeq);
    expect(await modelCalls(world, 'run-plain')).toHaveLength(3);
  }, 300_000);

  it('runs a write cut short by SIGKILL once, and does not ask the model again for an answered step', async () => {
    const world = await open();
    const first = await world.start({ holdWrites: true });
    const input = noteRun('run-crash');
    await world.runs.start(input);
    await expectWriteOnceAcrossKill({
      world,
      runId: 'run-crash',
      killFirst: async () => {
        expect(await world.stop(first.port, 'SIGKILL')).toBe('SIGKILL');
        return first.worker.pid as number;
      },
      startSecond: async () =>
        (await world.start({ port: first.port, build: 'build-1-restarted', holdWrites: true })).worker.pid as number,
      result: () => result(world, input),
    });
  }, 300_000);

  it('keeps an approval waiting across a restart and a new worker build; of two racing approvers one decides; the refund runs once', async () => {
    const world = await open();
    const first = await world.start();
    const input = refundRun('run-approval');
    await world.runs.start(input);
    const approvalId = await pendingApproval(world, 'run-approval');
    expect(await world.stop(first.port, 'SIGTERM')).toBe('0');
    await world.start({ port: first.port, build: 'build-2' });
    const decided = await Promise.allSettled([
      approve(world, approvalId, 'manager-1'),
      approve(world, approvalId, 'manager-2'),
    ]);
    expect(decided.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = decided.find((outcome) => outcome.status === 'rejected');
    expect(HttpError.isInstance(refused?.reason) ? refused.reason.status : refused?.reason).toBe(409);
    const summary = await result(world, input);
    expect(summary.stopReason).toBe('completed');
    expect(summary.text).toBe('Refunded order SO20260901.');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'refund:SO20260901' }]);
    const approvals = await world.query<{ status: string; approver: string }>(
      'SELECT status, approver FROM $schema.approvals WHERE run_id = $1',
      ['run-approval'],
    );
    expect(approvals.map((approval) => approval.status)).toEqual(['approved']);
    expect(await auditOf(world, 'run-approval', 'refund_order')).toEqual([
      { decision: 'approved', outcome: 'ok', approver: approvals[0]?.approver },
    ]);
    expect((await modelCalls(world, 'run-approval')).map((call) => call.last_role)).toEqual(['user', 'tool', 'tool']);
    await expectGaplessEvents(world, 'run-approval');
  }, 300_000);

  it("hands a killed worker's write to the other worker, which completes it once", async () => {
    const world = await open();
    const workers = [await world.start({ holdWrites: true }), await world.start({ holdWrites: true })];
    const input = noteRun('run-two-crash');
    await world.runs.start(input);
    const { pid } = await effectOf(world, 'note:SO20260902:gift wrap');
    const dying = workers.find((worker) => worker.worker.pid === pid);
    const survivor = workers.find((worker) => worker.worker.pid !== pid);
    if (dying === undefined || survivor === undefined) throw new Error(`no worker has pid ${pid}`);
    await world.stop(dying.port, 'SIGKILL');
    const askedBefore = (await modelCalls(world, 'run-two-crash')).length;
    const summary = await result(world, input);
    expect(summary.stopReason).toBe('completed');
    expect(await world.query('SELECT key FROM $schema.effects')).toHaveLength(1);
    const asked = await modelCalls(world, 'run-two-crash');
    expect(asked.slice(askedBefore)).toEqual([{ last_role: 'tool', pid: survivor.worker.pid }]);
    expect((await auditOf(world, 'run-two-crash', 'add_order_note')).map((row) => row.outcome)).toEqual([
      'reconciled:ok',
    ]);
    await expectGaplessEvents(world, 'run-two-crash');
  }, 300_000);

  it('resumes a run waiting for approval on the other worker when its worker stops, once approved', async () => {
    const world = await open();
    const workers = [await world.start(), await world.start()];
    const input = refundRun('run-two-approval');
    await world.runs.start(input);
    const approvalId = await pendingApproval(world, 'run-two-approval');
    // The worker still attached to the waiting invocation, else (suspended) either.
    const busy = world.busyPorts();
    const stopping = workers.find((worker) => busy.includes(worker.port)) ?? workers[0];
    const other = workers.find((worker) => worker !== stopping);
    if (stopping === undefined || other === undefined) throw new Error('two workers expected');
    expect(await world.stop(stopping.port, 'SIGTERM')).toBe('0');
    await approve(world, approvalId, 'manager-1');
    const summary = await result(world, input);
    expect(summary.stopReason).toBe('completed');
    expect(await world.query('SELECT key, pid FROM $schema.effects')).toEqual([
      { key: 'refund:SO20260901', pid: other.worker.pid },
    ]);
    expect((await auditOf(world, 'run-two-approval', 'refund_order')).map((row) => row.outcome)).toEqual(['ok']);
    await expectGaplessEvents(world, 'run-two-approval');
  }, 300_000);

  it("runs the sessions of arbiter's API in Restate: a refund streamed, approved across a deploy by one of two racing approvers (API and desk), run once; a note through useChat", async () => {
    const world = await open();
    const workers = [await world.start(), await world.start()];
    const api = await startEngineApi({
      world,
      connectionString: postgres.connectionString,
      engine: { name: 'restate', runs: world.runs },
    });
    try {
      await refundThroughApi({
        api,
        world,
        tag: 'api-refund',
        whileWaiting: async () => {
          // A deploy: each worker stopped and its new build started in its place.
          for (const { port } of workers) {
            expect(await world.stop(port, 'SIGTERM')).toBe('0');
            await world.start({ port, build: 'build-2' });
          }
        },
      });
      await noteThroughUseChat({ api, world, tag: 'api-note' });
    } finally {
      await api.close();
    }
  }, 300_000);
});
