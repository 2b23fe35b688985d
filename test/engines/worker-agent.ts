/**
 * What every engine worker of the tests builds before it joins its engine:
 * arbiter's stores on the test's PostgreSQL (ARBITER_URL, ARBITER_SCHEMA),
 * the shop's tables, tools and counted model, and arbiter's deciders, as
 * the agent options each engine's adapter takes. HOLD_WRITES=1 makes a
 * write wait, once its effect is committed, until the process dies;
 * APPROVAL_WAIT_MS bounds how long a run waits for its approvals.
 */

import { openEngineEventLog } from '../../src/durable/engine-event-log.js';
import type { EngineAgentOptions } from '../../src/durable/run-in-engine.js';
import { createTierGate } from '../../src/gate/tier-gate.js';
import { openPostgresBackend } from '../../src/store/postgres/open-postgres-backend.js';
import { countedShopModel, createShopTables, shopTools } from './engine-shop.js';

/** A variable the test must have set for the worker. */
export function environment(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

export async function openWorkerAgent() {
  const schema = environment('ARBITER_SCHEMA');
  const backend = await openPostgresBackend({ connectionString: environment('ARBITER_URL'), schema });
  await createShopTables(backend.pool, schema);
  // Written with the NOTIFY that wakes the API nodes streaming the run.
  const log = await openEngineEventLog({ backend });
  const approvalWaitMs = process.env['APPROVAL_WAIT_MS'];
  const agent: EngineAgentOptions = {
    model: countedShopModel({ pool: backend.pool, schema }),
    tools: shopTools({ pool: backend.pool, schema, holdWrites: process.env['HOLD_WRITES'] === '1' }),
    gate: createTierGate({ policyVersion: 'shop-1' }),
    approvals: backend.approvals,
    idempotency: backend.idempotency,
    audit: backend.audit,
    log,
    runs: backend.serverRuns,
    // Runs started through arbiter's API end in their session.
    sessions: backend.sessions,
    ...(approvalWaitMs === undefined ? {} : { approvalWaitMs: Number(approvalWaitMs) }),
  };
  return {
    schema,
    backend,
    agent,
    /** The worker's build, as the test named it (the "new version" of a deploy). */
    build: process.env['WORKER_BUILD'] ?? 'build-1',
    close: async () => {
      await log.close();
      await backend.close();
    },
  };
}
