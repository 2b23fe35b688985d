/**
 * One Restate worker of the engine tests: arbiter's shop as the session and
 * approvals virtual objects, served over h2c on 127.0.0.1:WORKER_PORT, on
 * the PostgreSQL the test started (arbiter's tables in ARBITER_SCHEMA).
 * Prints `ready` once it listens; SIGTERM closes it and exits 0 (a deploy's
 * stop); SIGKILL is the crash.
 *
 * Environment: ARBITER_URL, ARBITER_SCHEMA, WORKER_PORT, WORKER_BUILD (a label:
 * the "new version" of a deploy), HOLD_WRITES=1 (a write waits, once its
 * effect is committed, until the process dies).
 */
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { createTierGate } from '../../src/gate/tier-gate.js';
import { restateAgent } from '../../src/restate.js';
import { openPostgresBackend } from '../../src/store/postgres/open-postgres-backend.js';
import { countedShopModel, createShopTables, shopTools } from './engine-shop.js';

const environment = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

const schema = environment('ARBITER_SCHEMA');
const backend = await openPostgresBackend({ connectionString: environment('ARBITER_URL'), schema });
await createShopTables(backend.pool, schema);
const tools = shopTools({ pool: backend.pool, schema, holdWrites: process.env['HOLD_WRITES'] === '1' });
const { services } = restateAgent({
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
const server = http2.createServer(restate.createEndpointHandler({ services }));
await new Promise<void>((resolve) => server.listen(Number(environment('WORKER_PORT')), '127.0.0.1', resolve));
process.stdout.write(`ready ${process.env['WORKER_BUILD'] ?? 'build-1'} ${process.pid}\n`);

process.once('SIGTERM', () => {
  server.close();
  void backend.close().finally(() => process.exit(0));
});
