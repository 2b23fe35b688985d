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
import { postgresEngineStepRecords, temporalActivities } from '../../src/temporal.js';
import { environment, openWorkerAgent } from './worker-agent.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const arbiter = await openWorkerAgent();
const connection = await NativeConnection.connect({ address: environment('TEMPORAL_ADDRESS') });
const worker = await Worker.create({
  connection,
  taskQueue: environment('TASK_QUEUE'),
  identity: `${arbiter.build}@${process.pid}`,
  workflowBundle: { codePath: environment('WORKFLOW_BUNDLE') },
  activities: temporalActivities({
    agent: arbiter.agent,
    records: postgresEngineStepRecords({ pool: arbiter.backend.pool, schema: arbiter.schema }),
    heartbeatMs: 1000,
  }),
});
const running = worker.run();
process.stdout.write(`ready ${arbiter.build} ${process.pid}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    worker.shutdown();
    await running;
    await connection.close();
    await arbiter.close();
    process.exit(0);
  })();
});
