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
import { createTierGate } from '../../src/gate/tier-gate.js';
import { openPostgresBackend } from '../../src/store/postgres/open-postgres-backend.js';
import { countedShopModel, createShopTables, shopTools } from './engine-shop.js';

/** The replay protocol of arbiter's runs, not the build: a deploy keeps it, so waiting runs are recovered. */
export const dbosApplicationVersion = 'arbiter-runs-1';

const environment = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

const schema = environment('ARBITER_SCHEMA');
const backend = await openPostgresBackend({ connectionString: environment('ARBITER_URL'), schema });
await createShopTables(backend.pool, schema);
const tools = shopTools({ pool: backend.pool, schema, holdWrites: process.env['HOLD_WRITES'] === '1' });
const agent = registerDbosAgent({
  agent: {
    model: countedShopModel({ pool: backend.pool, schema }),
    tools,
    gate: createTierGate({ policyVersion: 'shop-1' }),
    approvals: backend.approvals,
    idempotency: backend.idempotency,
    audit: backend.audit,
    log: backend.events,
    runs: backend.serverRuns,
  },
});
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
process.stdout.write(`ready ${process.env['WORKER_BUILD'] ?? 'build-1'} ${process.pid}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await DBOS.shutdown();
    await backend.close();
    process.exit(0);
  })();
});
