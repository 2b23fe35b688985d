/**
 * Per-call overhead of an MCP tool through arbiter: one call of
 * server-everything's `echo` (stdio) through arbiter's tool-call pipeline
 * (`runToolCall`: parse, validate against the mounted `inputSchema`, the
 * repeated-call brake, bind, tier gate, execution under the tool's time
 * limit, the mount's MCP client and its transport, the result turned into
 * a tool message, the audit row in SQLite, events to a subscriber) against
 * the official SDK client calling the same tool of the same server process
 * over the same pipe directly, interleaved in the same process. Target:
 * arbiter adds at most 10% to the call.
 *
 * Two figures per path: wall-clock time per call (the target), and the
 * bench process's own CPU time per call (`process.cpuUsage`), which a busy
 * machine disturbs far less. A one-call `runAgent` run (two model turns,
 * run setup and finish around the same call) is reported beside them, not
 * as the target.
 *
 * `node dist-bench/bench/mcp-bench.js` runs it alone.
 */
import { resolve } from 'node:path';
import { emptyCallHistory } from '../src/core/call-history.js';
import type { AssistantMessage, ToolCall } from '../src/core/chat-message.js';
import { EventBus } from '../src/events/event-bus.js';
import { createTierGate } from '../src/gate/tier-gate.js';
import { runAgent } from '../src/loop/run-agent.js';
import { createRunRuntime, type RunRuntime } from '../src/loop/run-runtime.js';
import { runToolCall } from '../src/loop/run-tool-call.js';
import { McpServerMount } from '../src/mcp/client/mcp-server-mount.js';
import type { Model } from '../src/models/model.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import type { ToolContext } from '../src/tools/tool-types.js';
import {
  type BenchResult,
  formatMicroseconds,
  formatVerdict,
  isMainModule,
  measureInterleaved,
  median,
  target,
} from './measure.js';

const everythingBin = resolve('node_modules/.bin/mcp-server-everything');
const message = 'bench message';
const principal = { tenantId: 'bench', userId: 'u1', roles: [] };
/** Calls per run runtime in the per-call measurement: the run's own setup is not a call's cost. */
const callsPerRuntime = 100;
const iterations = 40;
const rounds = 21;

/** A model that calls `everything_echo` once, then answers: its own cost is a few object allocations. */
function oneCallModel(): Model {
  let calls = 0;
  return {
    name: 'bench:one-call',
    async generate({ messages }) {
      const last = messages.at(-1);
      if (last?.role !== 'tool') calls += 1;
      const assistant: AssistantMessage =
        last?.role === 'tool'
          ? { role: 'assistant', content: 'done' }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${calls}`,
                  type: 'function',
                  function: { name: 'everything_echo', arguments: JSON.stringify({ message }) },
                },
              ],
            };
      return {
        message: assistant,
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: assistant.tool_calls === undefined ? 'stop' : 'tool_calls',
      };
    },
  };
}

/**
 * Each operation `iterations` times per round, rotating order, and the
 * median over rounds of the bench process's CPU microseconds (user +
 * system) per operation.
 */
async function measureCpuInterleaved(operations: readonly (() => Promise<void>)[]): Promise<number[]> {
  const perOperation: number[][] = operations.map(() => []);
  for (let round = 0; round <= rounds; round += 1) {
    for (let offset = 0; offset < operations.length; offset += 1) {
      const index = (round + offset) % operations.length;
      const operation = operations[index] as () => Promise<void>;
      const before = process.cpuUsage();
      for (let iteration = 0; iteration < iterations; iteration += 1) await operation();
      const used = process.cpuUsage(before);
      if (round > 0) perOperation[index]?.push((used.user + used.system) / iterations);
    }
  }
  return perOperation.map((values) => median(values));
}

/** One line of the table: label, wall time per call, the bench process's CPU per call. */
function row(label: string, wallNanoseconds: number, cpuMicroseconds: number): string {
  return `  ${label.padEnd(56)}${formatMicroseconds(wallNanoseconds).padStart(11)}${`${cpuMicroseconds.toFixed(2)} µs`.padStart(17)}`;
}

/** Event-loop iterations and I/O events per operation (libuv's own counters), over `calls` operations. */
async function loopTurnsPer(operation: () => Promise<void>, calls: number): Promise<{ turns: number; events: number }> {
  const before = performance.nodeTiming.uvMetricsInfo;
  for (let index = 0; index < calls; index += 1) await operation();
  // The counters of the iteration running now are added when it ends.
  await new Promise((resolve) => setImmediate(resolve));
  const after = performance.nodeTiming.uvMetricsInfo;
  return { turns: (after.loopCount - before.loopCount) / calls, events: (after.events - before.events) / calls };
}

export async function runMcpBench(): Promise<BenchResult> {
  const mount = await McpServerMount.open({ server: { name: 'everything', command: everythingBin } });
  // The SDK client under arbiter's own connection: same server process, same pipe, no arbiter in between.
  const direct = await mount.connection.sdkClient();
  const store = openSqliteStore({ path: ':memory:' });
  try {
    const registry = new ToolRegistry();
    mount.attach(registry);
    const gate = createTierGate({ tools: registry });
    const audit = new SqliteAuditLog({ database: store.database });
    const events = new EventBus();
    let delivered = 0;
    events.subscribe(() => {
      delivered += 1;
    });
    const model = oneCallModel();

    // Both sides send the same, distinct message each call (the repeated-call brake would stop a repeat).
    let sequence = 0;
    let runtime: RunRuntime | undefined;
    let runtimeCalls = 0;
    let arbiterCalls = 0;
    const perCallThroughArbiter = async () => {
      sequence += 1;
      if (runtime === undefined || runtimeCalls === callsPerRuntime) {
        runtime = createRunRuntime(
          { model, tools: registry, gate, audit, events, messages: [], principal },
          `bench_run_${sequence}`,
        );
        runtimeCalls = 0;
      }
      runtimeCalls += 1;
      const sent = `${message} ${sequence}`;
      const call: ToolCall = {
        id: `call_${sequence}`,
        type: 'function',
        function: { name: 'everything_echo', arguments: JSON.stringify({ message: sent }) },
      };
      const report = await runToolCall(runtime, registry, call, runtimeCalls, 'run');
      if (report.kind !== 'done' || !report.content.includes(sent)) {
        throw new Error(`bench call through arbiter ended ${JSON.stringify(report)}`);
      }
      arbiterCalls += 1;
    };
    // For the breakdown only, not the target: the same pipeline with the in-memory audit log a run makes without one.
    let memoryRuntime: RunRuntime | undefined;
    let memoryRuntimeCalls = 0;
    const perCallMemoryAudit = async () => {
      sequence += 1;
      if (memoryRuntime === undefined || memoryRuntimeCalls === callsPerRuntime) {
        memoryRuntime = createRunRuntime(
          { model, tools: registry, gate, events, messages: [], principal },
          `bench_memory_run_${sequence}`,
        );
        memoryRuntimeCalls = 0;
      }
      memoryRuntimeCalls += 1;
      const sent = `${message} ${sequence}`;
      const call: ToolCall = {
        id: `call_${sequence}`,
        type: 'function',
        function: { name: 'everything_echo', arguments: JSON.stringify({ message: sent }) },
      };
      const report = await runToolCall(memoryRuntime, registry, call, memoryRuntimeCalls, 'run');
      if (report.kind !== 'done' || !report.content.includes(sent)) {
        throw new Error(`bench call with the memory audit ended ${JSON.stringify(report)}`);
      }
    };
    const perCallDirect = async () => {
      sequence += 1;
      const sent = `${message} ${sequence}`;
      const result = await direct.callTool({ name: 'echo', arguments: { message: sent } });
      const text = (result.content as readonly { type: string; text?: string }[] | undefined)?.[0]?.text;
      if (result.isError === true || text === undefined || !text.includes(sent)) throw new Error('direct call failed');
    };
    // The MCP client alone: the mounted tool's own execute (connection, SDK, transport, result), no pipeline.
    const echo = mount.tools.find((tool) => tool.mcpName === 'echo')?.definition;
    if (echo === undefined) throw new Error('server-everything has no echo tool');
    const clientOnly = new AbortController();
    const clientOnlyContext: ToolContext = {
      runId: 'bench_client_only',
      sessionId: undefined,
      step: 1,
      toolCallId: 'call_client_only',
      principal,
      signal: clientOnly.signal,
      locale: 'en',
      history: emptyCallHistory,
      reportProgress: () => {},
    };
    const mcpClientOnly = async () => {
      sequence += 1;
      const sent = `${message} ${sequence}`;
      const data = await echo.execute({ message: sent }, clientOnlyContext);
      if (typeof data !== 'string' || !data.includes(sent)) throw new Error('mounted tool call failed');
    };
    const oneCallRun = async () => {
      const result = await runAgent({
        model,
        tools: registry,
        gate,
        audit,
        events,
        messages: [{ role: 'user', content: 'echo' }],
        principal,
      });
      if (result.stopReason !== 'completed') throw new Error(`bench run ended ${result.stopReason}`);
    };

    // Warm every path (JIT, the server's first calls).
    for (let index = 0; index < 100; index += 1) {
      await perCallThroughArbiter();
      await perCallDirect();
      await oneCallRun();
      await mcpClientOnly();
      await perCallMemoryAudit();
    }
    const operations = [perCallThroughArbiter, perCallDirect, oneCallRun, mcpClientOnly, perCallMemoryAudit];
    const [arbiter, sdk, run, client, memoryAudit] = await measureInterleaved({ operations, iterations, rounds });
    const [arbiterCpu, sdkCpu, runCpu, clientCpu, memoryAuditCpu] = await measureCpuInterleaved(operations);
    if (
      arbiter === undefined ||
      sdk === undefined ||
      run === undefined ||
      client === undefined ||
      memoryAudit === undefined ||
      memoryAuditCpu === undefined ||
      arbiterCpu === undefined ||
      sdkCpu === undefined ||
      runCpu === undefined ||
      clientCpu === undefined
    ) {
      throw new Error('no measurement');
    }
    const loopCalls = 400;
    const arbiterLoop = await loopTurnsPer(perCallThroughArbiter, loopCalls);
    const sdkLoop = await loopTurnsPer(perCallDirect, loopCalls);
    const runLoop = await loopTurnsPer(oneCallRun, loopCalls);
    // Not a cheat: every call through arbiter left its row in the SQLite audit log.
    await audit.flush();
    const { rows } = store.database.prepare('SELECT count(*) AS rows FROM audit_log').get() as { rows: number };
    if (rows < arbiterCalls) throw new Error(`${arbiterCalls} calls through arbiter left only ${rows} audit rows`);

    const sdkMicroseconds = sdk.nanosecondsPerOperation / 1000;
    const arbiterMicroseconds = arbiter.nanosecondsPerOperation / 1000;
    const runMicroseconds = run.nanosecondsPerOperation / 1000;
    const added = (arbiterMicroseconds - sdkMicroseconds) / sdkMicroseconds;
    const addedCpu = (arbiterCpu - sdkCpu) / sdkCpu;
    const addedRun = (runMicroseconds - sdkMicroseconds) / sdkMicroseconds;
    const overhead = target({
      id: 'mcp_call_overhead_vs_sdk',
      description:
        'wall time arbiter adds to one MCP tool call (tool-call pipeline with validation, gate, SQLite audit, MCP client and stdio) over a direct SDK call, as a fraction',
      value: added,
      comparison: '<=',
      limit: 0.1,
    });
    return {
      lines: [
        `mcp: an MCP tool call (server-everything echo, stdio, same server process), interleaved, median of ${rounds} rounds × ${iterations} calls`,
        `  ${''.padEnd(56)}${'wall/call'.padStart(11)}${'bench CPU/call'.padStart(17)}`,
        row('direct SDK client callTool', sdk.nanosecondsPerOperation, sdkCpu),
        row("through arbiter's tool-call pipeline (runToolCall)", arbiter.nanosecondsPerOperation, arbiterCpu),
        `    parse, validation, brake, bind, tier gate, time limit, MCP client and stdio, result, SQLite audit (${rows} rows), events (${delivered} delivered)`,
        row(
          '  same, in-memory audit log instead (breakdown only)',
          memoryAudit.nanosecondsPerOperation,
          memoryAuditCpu,
        ),
        row("the mounted tool's execute alone (the MCP client)", client.nanosecondsPerOperation, clientCpu),
        row('one-call runAgent run (2 model turns + the call)', run.nanosecondsPerOperation, runCpu),
        `  event-loop iterations per call: direct ${sdkLoop.turns.toFixed(2)} (${sdkLoop.events.toFixed(2)} I/O events), through arbiter ${arbiterLoop.turns.toFixed(2)} (${arbiterLoop.events.toFixed(2)} I/O events), one-call run ${runLoop.turns.toFixed(2)}`,
        `  arbiter adds per call (wall): ${formatVerdict(overhead)}`,
        `  arbiter adds per call (bench CPU): ${addedCpu.toFixed(3)}; a whole one-call run adds (wall): ${addedRun.toFixed(3)}`,
      ],
      ratios: {
        mcpCallOverheadVersusSdk: added,
        mcpCallCpuOverheadVersusSdk: addedCpu,
        mcpOneCallRunOverheadVersusSdk: addedRun,
      },
      figures: {
        directMicroseconds: sdkMicroseconds,
        arbiterMicroseconds,
        oneCallRunMicroseconds: runMicroseconds,
        directCpuMicroseconds: sdkCpu,
        arbiterCpuMicroseconds: arbiterCpu,
        oneCallRunCpuMicroseconds: runCpu,
        mcpClientOnlyMicroseconds: client.nanosecondsPerOperation / 1000,
        mcpClientOnlyCpuMicroseconds: clientCpu,
        memoryAuditMicroseconds: memoryAudit.nanosecondsPerOperation / 1000,
        memoryAuditCpuMicroseconds: memoryAuditCpu,
        auditRows: rows,
        directLoopTurnsPerCall: sdkLoop.turns,
        arbiterLoopTurnsPerCall: arbiterLoop.turns,
        oneCallRunLoopTurns: runLoop.turns,
        eventsDelivered: delivered,
      },
      targets: [overhead],
    };
  } finally {
    await mount.close();
    store.close();
  }
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runMcpBench();
  for (const line of lines) console.log(line);
}
