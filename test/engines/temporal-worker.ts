/**
 * One Temporal worker of the engine tests: arbiter's shop as the activities
 * of `arbiterRun`, the workflow code from the bundle the test built once
 * (WORKFLOW_BUNDLE), on the dev server the test started and the PostgreSQL
 * it started (arbiter's tables and the runs' step records in
 * ARBITER_SCHEMA). Prints `ready` once it polls; SIGTERM shuts the worker
 * down and exits 0 (a deploy's stop); SIGKILL is the crash.
 *
 * Environment: ARBITER_URL, ARBITER_SCHEMA, TEMPORAL_ADDRESS, TASK_QUEUE,
 * WORKFLOW_BUNDLE, WORKER_BUILD (a label: the "new version" of a deploy),
 * HOLD_WRITES=1 (a write waits, once its effect is committed, until the
 * process dies), APPROVAL_WAIT_MS (how long a run waits for its approvals).
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createTierGate } from '../../src/gate/tier-gate.js';
import { openPostgresBackend } from '../../src/store/postgres/open-postgres-backend.js';
import { openEngineEventLog, postgresEngineStepRecords, temporalActivities } from '../../src/temporal.js';
import { countedShopModel, createShopTables, shopTools } from './engine-shop.js';

const environment = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

Runtime.install({ logger: new DefaultLogger('WARN') });
const schema = environment('ARBITER_SCHEMA');
const build = process.env['WORKER_BUILD'] ?? 'build-1';
const backend = await openPostgresBackend({ connectionString: environment('ARBITER_URL'), schema });
await createShopTables(backend.pool, schema);
const tools = shopTools({ pool: backend.pool, schema, holdWrites: process.env['HOLD_WRITES'] === '1' });
const approvalWaitMs = process.env['APPROVAL_WAIT_MS'];
// Written with the NOTIFY that wakes the API nodes streaming the run.
const log = await openEngineEventLog({ backend });
const connection = await NativeConnection.connect({ address: environment('TEMPORAL_ADDRESS') });
const worker = await Worker.create({
  connection,
  taskQueue: environment('TASK_QUEUE'),
  identity: `${build}@${process.pid}`,
  workflowBundle: { codePath: environment('WORKFLOW_BUNDLE') },
  activities: temporalActivities({
    agent: {
      model: countedShopModel({ pool: backend.pool, schema }),
      tools,
      gate: createTierGate({ policyVersion: 'shop-1' }),
      approvals: backend.approvals,
      idempotency: backend.idempotency,
      audit: backend.audit,
      log,
      runs: backend.serverRuns,
      // Runs started through arbiter's API end in their session.
      sessions: backend.sessions,
      ...(approvalWaitMs === undefined ? {} : { approvalWaitMs: Number(approvalWaitMs) }),
    },
    records: postgresEngineStepRecords({ pool: backend.pool, schema }),
    heartbeatMs: 1000,
  }),
});
const running = worker.run();
process.stdout.write(`ready ${build} ${process.pid}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    worker.shutdown();
    await running;
    await connection.close();
    await log.close();
    await backend.close();
    process.exit(0);
  })();
});
