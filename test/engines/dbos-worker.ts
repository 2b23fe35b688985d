/**
 * One DBOS worker of the engine tests: arbiter's shop as the registered
 * workflow, on the PostgreSQL the test started (arbiter's tables in
 * ARBITER_SCHEMA, DBOS's system database beside them). Prints `ready` once
 * it dequeues; SIGTERM shuts DBOS down and exits 0 (a deploy's stop);
 * SIGKILL is the crash.
 *
 * Environment: ARBITER_URL, ARBITER_SCHEMA, DBOS_SYSTEM_URL, DBOS_EXECUTOR_ID,
 * WORKER_BUILD (a label: the "new version" of a deploy), HOLD_WRITES=1 (a write
 * waits, once its effect is committed, until the process dies).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { registerDbosAgent } from '../../src/dbos.js';
import { environment, openWorkerAgent } from './worker-agent.js';

/** The replay protocol of arbiter's runs, not the build: a deploy keeps it, so waiting runs are recovered. */
export const dbosApplicationVersion = 'arbiter-runs-1';

const worker = await openWorkerAgent();
const agent = registerDbosAgent({ agent: worker.agent });
DBOS.setConfig({
  name: 'arbiter-engine-test',
  systemDatabaseUrl: environment('DBOS_SYSTEM_URL'),
  executorID: environment('DBOS_EXECUTOR_ID'),
  applicationVersion: dbosApplicationVersion,
  logLevel: 'warn',
  runAdminServer: false,
});
await DBOS.launch();
await agent.registerQueue();
process.stdout.write(`ready ${worker.build} ${process.pid}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await DBOS.shutdown();
    await worker.close();
    process.exit(0);
  })();
});
