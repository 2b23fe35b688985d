/**
 * What every engine test reads and does on arbiter's side: a fresh schema
 * of arbiter's tables on the test's PostgreSQL, the runs the tests start,
 * and the checks read from the database (effects, the model's calls, the
 * audit, the approvals, the run's event log), plus approvals decided
 * through arbiter's approval decision with the engine's `resumeRun`.
 */
import pg from 'pg';
import { expect } from 'vitest';
import type { Awaitable } from '../../src/core/awaitable.js';
import type { Principal } from '../../src/core/principal.js';
import type { DurableRunInput } from '../../src/durable/run-in-engine.js';
import { decideApproval } from '../../src/server/decide-approval.js';
import type { ServerDependencies } from '../../src/server/server-env.js';
import { openPostgresBackend } from '../../src/store/postgres/open-postgres-backend.js';
import { createShopTables, shopTools } from './engine-shop.js';
import { pollUntil } from './engine-workers.js';

const customer: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

export async function openArbiterWorld({ connectionString, schema }: { connectionString: string; schema: string }) {
  const backend = await openPostgresBackend({ connectionString, schema });
  const pool = new pg.Pool({ connectionString, max: 2 });
  await createShopTables(pool, schema);
  const query = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await pool.query<Row>(text.replaceAll('$schema', `"${schema}"`), values)).rows;
  return {
    schema,
    backend,
    query,
    close: async () => {
      await pool.end();
      await backend.close();
    },
  };
}

export type ArbiterWorld = Awaited<ReturnType<typeof openArbiterWorld>>;

/** A run whose model reads an order and adds a note to it (no person needed). */
export const noteRun = (runId: string): DurableRunInput => ({
  runId,
  sessionId: `session-${runId}`,
  principal: customer,
  messages: [{ role: 'user', content: `[run ${runId}] Please put a gift wrap note on SO20260902.` }],
});

/** A run whose model reads an order and refunds it (irreversible: a person approves). */
export const refundRun = (runId: string): DurableRunInput => ({
  runId,
  sessionId: `session-${runId}`,
  principal: customer,
  messages: [{ role: 'user', content: `[run ${runId}] Please refund SO20260901.` }],
});

/** The run's logged events: seqs rising by one (a merged delta carries its last fragment's seq), no repeat, ending with run:end. */
export async function expectGaplessEvents(world: ArbiterWorld, runId: string) {
  const events = await world.backend.events.readEvents({ runId, afterSeq: 0 });
  const seqs = events.map((event) => event.seq);
  expect(new Set(seqs).size).toBe(seqs.length);
  for (const [index, event] of events.entries()) {
    const before = index === 0 ? 0 : (events[index - 1]?.seq ?? 0);
    if (event.seq !== before + 1) {
      expect({ seq: event.seq, type: event.type }).toEqual({ seq: event.seq, type: 'model:delta' });
    }
  }
  expect(events.at(-1)?.type).toBe('run:end');
  // Every call proposed has its end in the log: a step run again after a crash numbered its events after the first attempt's.
  const ended = new Set(
    events.flatMap((event) => (event.type === 'tool:end' || event.type === 'tool:error' ? [event.toolCallId] : [])),
  );
  const proposed = events.flatMap((event) => (event.type === 'tool:proposed' ? [event.toolCallId] : []));
  expect(proposed.filter((toolCallId) => !ended.has(toolCallId))).toEqual([]);
  return events;
}

export function modelCalls(world: ArbiterWorld, runId: string) {
  return world.query<{ last_role: string; pid: number }>(
    'SELECT last_role, pid FROM $schema.model_calls WHERE run_id = $1 ORDER BY id',
    [runId],
  );
}

export function auditOf(world: ArbiterWorld, runId: string, tool: string) {
  return world.query<{ decision: string; outcome: string; approver: string | null }>(
    'SELECT decision, outcome, approver FROM $schema.audit_log WHERE run_id = $1 AND tool = $2 ORDER BY audit_id',
    [runId, tool],
  );
}

/**
 * An approver of the customer's tenant approving through arbiter's approval
 * decision (what `POST /v1/approvals/:id` and the desk call): the approver
 * role, four eyes and the pending state are checked and the decision
 * recorded before `resumeRun` signals the engine.
 */
export function approveAs(
  world: ArbiterWorld,
  {
    approvalId,
    userId,
    resumeRun,
  }: { approvalId: string; userId: string; resumeRun: (runId: string) => Awaitable<void> },
) {
  const dependencies = {
    approvals: world.backend.approvals,
    // decideApproval reads a run's record and nothing else of the server's runs.
    runs: { find: (runId: string) => world.backend.serverRuns.find(runId) },
    sessions: world.backend.sessions,
    audit: world.backend.audit,
    tools: shopTools({ pool: world.backend.pool, schema: world.schema, holdWrites: false }),
    allowSelfApproval: false,
    resumeRun,
  };
  // What decideApproval reads of the server's dependencies; the rest of a server is not needed to decide.
  return decideApproval(dependencies as unknown as ServerDependencies, {
    principal: { tenantId: 'shop', userId, roles: ['approver'] },
    approvalId,
    decision: 'approve',
  });
}

export function pendingApproval(world: ArbiterWorld, runId: string) {
  return pollUntil(
    async () =>
      (
        await world.query<{ approval_id: string }>(
          "SELECT approval_id FROM $schema.approvals WHERE run_id = $1 AND status = 'pending'",
          [runId],
        )
      )[0]?.approval_id,
    { what: `a pending approval of ${runId}` },
  );
}

export function effectOf(world: ArbiterWorld, key: string) {
  return pollUntil(
    async () => (await world.query<{ pid: number }>('SELECT pid FROM $schema.effects WHERE key = $1', [key]))[0],
    { what: `the effect ${key}` },
  );
}

/**
 * The crash every engine survives: the note run's write is killed (SIGKILL) once its effect's row is committed
 * and while the tool still executes, and a worker of a new build takes over. The note exists once (written by
 * the killed worker), the new worker is asked only for the answer after the note, and the audit records the
 * effect as found again (reconciled), never executed twice. The caller has started the run.
 */
export async function expectWriteOnceAcrossKill({
  world,
  runId,
  killFirst,
  startSecond,
  result,
}: {
  world: ArbiterWorld;
  runId: string;
  /** SIGKILLs the worker that runs the write (checking that the signal killed it); that worker's pid. */
  killFirst: () => Promise<number>;
  /** Starts the worker of the next build; its pid. */
  startSecond: () => Promise<number>;
  /** The run's outcome once it has ended. */
  result: () => Promise<{ stopReason: string }>;
}): Promise<void> {
  await effectOf(world, 'note:SO20260902:gift wrap');
  const firstPid = await killFirst();
  const askedBefore = await modelCalls(world, runId);
  expect(askedBefore.map((call) => call.last_role)).toEqual(['user', 'tool']);
  const secondPid = await startSecond();
  expect((await result()).stopReason).toBe('completed');
  expect(await world.query('SELECT key, pid FROM $schema.effects')).toEqual([
    { key: 'note:SO20260902:gift wrap', pid: firstPid },
  ]);
  const asked = await modelCalls(world, runId);
  // Only the answer after the note was asked of the restarted worker.
  expect(asked.slice(askedBefore.length)).toEqual([{ last_role: 'tool', pid: secondPid }]);
  expect((await auditOf(world, runId, 'add_order_note')).map((row) => row.outcome)).toEqual(['reconciled:ok']);
  await expectGaplessEvents(world, runId);
}

/** `killFirst` for `expectWriteOnceAcrossKill`: SIGKILLs `worker`, checks that the signal ended it, gives its pid. */
export function killing(worker: { readonly pid: number; kill(signal: 'SIGKILL'): Promise<string> }) {
  return async (): Promise<number> => {
    expect(await worker.kill('SIGKILL')).toBe('SIGKILL');
    return worker.pid;
  };
}
