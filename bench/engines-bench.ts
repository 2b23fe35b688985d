/**
 * `npm run bench -- engines`: what arbiter adds per step inside DBOS, over
 * DBOS's own bare step, and arbiter's own durable path on the same
 * PostgreSQL beside it, in one process and one run; and the history DBOS
 * keeps per step (bytes of recorded step outputs). A run here is the
 * scripted model calling `query_order` STEPS times, then answering: 2 ×
 * STEPS + 1 steps (model turns and gated tool executions). Restate is not
 * measured here (its server is another process: a step's cost is dominated
 * by the round trip to it); its tests run in test/engines.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import type { Principal } from '../src/core/principal.js';
import { registerDbosAgent } from '../src/dbos.js';
import { createTierGate } from '../src/gate/tier-gate.js';
import { runSession } from '../src/loop/run-session.js';
import { ScriptedModel } from '../src/models/scripted-model.js';
import { openPostgresBackend } from '../src/store/postgres/open-postgres-backend.js';
import {
  findPostgresBinaries,
  startPostgresCluster,
} from '../src/store/postgres/test-support/start-postgres-cluster.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import { type BenchResult, isMainModule, median } from './measure.js';

const toolSteps = 5;
const runs = 9;
const principal: Principal = { tenantId: 'bench', userId: 'U1', roles: ['customer'] };

function benchTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'query_order',
      description: 'Look up one order. Not to change it.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'read',
      execute: ({ order_id }) => ({ order_id, status: 'delivered' }),
    }),
  );
  return registry;
}

function benchModel(): ScriptedModel {
  const steps = Array.from({ length: toolSteps }, (_, index) => ({
    call: { name: 'query_order', arguments: { order_id: `SO2026090${index}` } },
  }));
  return new ScriptedModel({ script: { name: 'bench', turns: [{ steps: [...steps, { say: 'Done.' }] }] } });
}

export async function runEnginesBench(): Promise<BenchResult> {
  const binaries = findPostgresBinaries();
  if (binaries === undefined) return { lines: ['engines: skipped, no PostgreSQL binaries'], ratios: {} };
  const cluster = await startPostgresCluster({ binaries });
  const lines: string[] = [];
  try {
    const backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema: 'bench' });
    const tools = benchTools();
    const agentOptions = {
      model: benchModel(),
      tools,
      gate: createTierGate({ policyVersion: 'bench' }),
      approvals: backend.approvals,
      idempotency: backend.idempotency,
      audit: backend.audit,
    };
    const stepsPerRun = 2 * toolSteps + 1;
    const bare = DBOS.registerWorkflow(
      async (count: number) => {
        for (let index = 0; index < count; index += 1) {
          await DBOS.runStep(async () => ({ index, ok: true }), { name: `bare:${index}` });
        }
        return count;
      },
      { name: 'bench.bare' },
    );
    const agent = registerDbosAgent({ agent: { ...agentOptions, log: backend.events } });
    const systemDatabaseUrl = cluster.connectionString.replace(/\/postgres$/, '/bench_dbos');
    DBOS.setConfig({
      name: 'arbiter-bench',
      systemDatabaseUrl,
      applicationVersion: 'bench',
      logLevel: 'error',
      runAdminServer: false,
    });
    await DBOS.launch();
    const timed = async (once: (index: number) => Promise<unknown>) => {
      await once(-1);
      const times: number[] = [];
      for (let index = 0; index < runs; index += 1) {
        const start = performance.now();
        await once(index);
        times.push(performance.now() - start);
      }
      return median(times);
    };
    const bareMs = await timed(async (index) =>
      (await DBOS.startWorkflow(bare, { workflowID: `bare-${index}` })(stepsPerRun)).getResult(),
    );
    const dbosMs = await timed(async (index) => {
      const runId = `dbos-${index}`;
      const input = {
        runId,
        sessionId: `s-${runId}`,
        principal,
        messages: [{ role: 'user' as const, content: 'Look the orders up.' }],
      };
      return (await DBOS.startWorkflow(agent.workflow, { workflowID: runId })(input)).getResult();
    });
    const ownMs = await timed(async () => {
      const session = await backend.sessions.create({ principal });
      return runSession({
        ...agentOptions,
        principal,
        sessions: backend.sessions,
        sessionId: session.id,
        userMessage: 'Look the orders up.',
        heartbeatMs: 0,
      });
    });
    const pool = new pg.Pool({ connectionString: systemDatabaseUrl, max: 1 });
    const history = await pool.query<{ bytes: string; steps: string }>(
      "SELECT sum(octet_length(coalesce(output, ''))) AS bytes, count(*) AS steps FROM dbos.operation_outputs WHERE workflow_uuid = 'dbos-0'",
    );
    await pool.end();
    await DBOS.shutdown();
    await backend.close();
    const perStep = (ms: number) => ms / stepsPerRun;
    const historyBytes = Number(history.rows[0]?.bytes ?? 0);
    const historySteps = Number(history.rows[0]?.steps ?? 0);
    lines.push(
      `engines: a run of ${stepsPerRun} steps (${toolSteps} gated read calls), median of ${runs} runs, on one PostgreSQL`,
      `  DBOS bare step              ${perStep(bareMs).toFixed(2)} ms/step`,
      `  arbiter in DBOS             ${perStep(dbosMs).toFixed(2)} ms/step (+${(perStep(dbosMs) - perStep(bareMs)).toFixed(2)} ms over the bare step)`,
      `  arbiter's own durable path  ${perStep(ownMs).toFixed(2)} ms/step (runSession on PostgreSQL)`,
      `  DBOS history                ${(historyBytes / Math.max(historySteps, 1)).toFixed(0)} bytes/step (${historySteps} recorded steps, ${historyBytes} bytes)`,
    );
    return {
      lines,
      ratios: { engines_dbos_over_bare_step: dbosMs / bareMs, engines_dbos_over_own_path: dbosMs / ownMs },
      figures: {
        engines: {
          stepsPerRun,
          bareDbosMsPerStep: perStep(bareMs),
          arbiterInDbosMsPerStep: perStep(dbosMs),
          arbiterOwnPathMsPerStep: perStep(ownMs),
          dbosHistoryBytesPerStep: historyBytes / Math.max(historySteps, 1),
        },
      },
    };
  } finally {
    await cluster.stop();
  }
}

if (isMainModule(import.meta.url)) {
  const result = await runEnginesBench();
  for (const line of result.lines) console.log(line);
}
