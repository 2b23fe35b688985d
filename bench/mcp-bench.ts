/**
 * Per-call overhead of an MCP tool through arbiter: one call of
 * server-everything's `echo` (stdio) through arbiter's tool-call pipeline
 * (`runToolCall`: parse, validate against the mounted `inputSchema`, the
 * repeated-call brake, bind, tier gate, execution under the tool's time
 * limit, the mount's MCP client and its transport, the result turned into
 * a tool message, the audit row in SQLite, events to a subscriber) against
 * the official SDK client calling the same tool of the same server process
 * over the same pipe directly. Target: arbiter adds at most 10% to the call.
 *
 * Paired blocks (`measurePaired`): 20 calls through arbiter and 20 direct
 * calls back to back, the order swapped pair by pair, 300 pairs; the
 * target is the median over the pairs of arbiter's block time over the
 * direct block's, minus one, printed with its quartiles, a 95% interval
 * and the ratio of the totals. A burst of load from another process (the
 * machine is shared) slows both blocks of a pair alike, and the median
 * drops the pairs it hit one block of. Nothing of arbiter's is charged to
 * the direct calls: its audit rows commit inside its own block (`settle`),
 * both sides send the same message to the same process, and every call
 * through arbiter must leave its audit row. Arbiter's requests carry a
 * progress token (its progress notifications need one) and the run's abort
 * signal; the direct ones carry neither.
 *
 * The two sides reach the server through the same SDK client, in different
 * ways. The direct side makes the plain `callTool` the SDK's documentation
 * shows. Arbiter sends `tools/call` through the SDK's `request()` and
 * checks the result itself (`checkCallToolResult`, then the tool's
 * `outputSchema` on its linear-time patterns): it must check a third
 * party's answer anyway, and `callTool` adds a zod parse of the result and
 * a response-cache lookup, about 45 µs a call here. The row "the mounted
 * tool's execute alone" shows what arbiter's client costs against
 * `callTool` on its own, so the pipeline's share can be read apart from it.
 *
 * Beside wall time: this process's CPU time per call (`process.cpuUsage`),
 * the server process's (`/proc/<pid>/task/<tid>/schedstat`), the
 * collector's pauses that began in each side's blocks, and how long either
 * main thread was ready to run but had no CPU (other processes' load). The
 * breakdown rows (the in-memory audit log, the mounted tool's execute
 * alone, a one-call `runAgent` run) are each paired with the direct call
 * the same way.
 *
 * On the shared 2-core virtual machine the figures depend on its state,
 * which a pair cancels but a run does not: with nothing else running, both
 * calls took about twice as long, CPU included (the virtual CPUs idle
 * between request and answer), and arbiter's share was lower. The wait
 * columns show which state a run saw.
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
import { recordGarbageCollections } from './garbage-collections.js';
import { type BenchResult, formatVerdict, isMainModule, target } from './measure.js';
import {
  type AddedFraction,
  type Block,
  measurePaired,
  type PairedMeasurement,
  type PairedSide,
  type SideFigures,
} from './measure-paired.js';
import { readThreadSchedule } from './thread-schedule.js';

const everythingBin = resolve('node_modules/.bin/mcp-server-everything');
const message = 'bench message';
const principal = { tenantId: 'bench', userId: 'u1', roles: [] };
/** Calls per run runtime in the per-call measurement: the run's own setup is not a call's cost. */
const callsPerRuntime = 100;
/** Calls per block: enough to share the audit commit at its end, few enough that the load changes little within a pair. */
const callsPerBlock = 20;
const pairs = 300;
const breakdownPairs = 100;

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

const columns = [52, 8, 8, 9, 8, 8, 9, 8, 10] as const;

/** `label`, then the cells right-aligned in their columns. */
function tableLine(label: string, cells: readonly string[]): string {
  return `  ${label.padEnd(columns[0])}${cells.map((cell, index) => cell.padStart(columns[index + 1] ?? 8)).join('')}`;
}

const header = tableLine('µs per call (medians of blocks)', [
  'wall',
  'added',
  'CPU',
  'added',
  'GC',
  'server',
  'wait',
  'srv wait',
]);

/** `+0.083` or `−0.012`. */
function signed(value: number): string {
  return `${value >= 0 ? '+' : '\u2212'}${Math.abs(value).toFixed(3)}`;
}

/** One line of the table: a side's figures per call, and what it adds to the direct call. */
function row(
  label: string,
  side: SideFigures,
  collectedMicroseconds: number,
  added?: { wall: AddedFraction; cpu: AddedFraction },
): string {
  const microseconds = (value: number | undefined) =>
    value === undefined || Number.isNaN(value) ? '-' : value.toFixed(1);
  return tableLine(label, [
    microseconds(side.wallNanoseconds / 1000),
    added === undefined ? '' : signed(added.wall.median),
    microseconds(side.cpuMicroseconds),
    added === undefined ? '' : signed(added.cpu.median),
    microseconds(collectedMicroseconds),
    microseconds((side.counters.serverCpu ?? Number.NaN) / 1000),
    microseconds((side.counters.benchWait ?? Number.NaN) / 1000),
    microseconds((side.counters.serverWait ?? Number.NaN) / 1000),
  ]);
}

/** `quartiles +0.031 … +0.142, 95% interval of the median +0.070 … +0.095, of the totals +0.091` */
function spread(added: AddedFraction): string {
  return `quartiles ${signed(added.lowerQuartile)} … ${signed(added.upperQuartile)}, 95% interval of the median ${signed(added.confidenceLow)} … ${signed(added.confidenceHigh)}, of the totals ${signed(added.ofTotals)}`;
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
    const serverPid = await mount.connection.pid();
    if (serverPid === undefined) throw new Error('server-everything runs without a process id');
    const counters = () => {
      const server = readThreadSchedule(serverPid);
      const bench = readThreadSchedule(process.pid);
      return {
        serverCpu: server?.runNanoseconds ?? Number.NaN,
        serverWait: server?.mainWaitNanoseconds ?? Number.NaN,
        benchWait: bench?.mainWaitNanoseconds ?? Number.NaN,
      };
    };
    // Rows waiting for a transaction commit inside the block that wrote them, never in the next one.
    const commitAudit = () => audit.flush();
    const baseline = { call: perCallDirect };
    const paired = (subject: PairedSide, count: number) =>
      measurePaired({ subject, baseline, pairs: count, callsPerBlock, counters });
    const collections = recordGarbageCollections();
    const pipeline = await paired({ call: perCallThroughArbiter, settle: commitAudit }, pairs);
    const memoryAudit = await paired({ call: perCallMemoryAudit }, breakdownPairs);
    const clientAlone = await paired({ call: mcpClientOnly }, breakdownPairs);
    const run = await paired({ call: oneCallRun, settle: commitAudit }, breakdownPairs);
    // Let the last entries arrive.
    await new Promise((resolve) => setTimeout(resolve, 10));
    collections.stop();
    const collectedPerCall = (blocks: readonly Block[]) =>
      (collections.within(blocks) * 1000) / (blocks.length * callsPerBlock);

    const loopCalls = 400;
    const arbiterLoop = await loopTurnsPer(perCallThroughArbiter, loopCalls);
    const sdkLoop = await loopTurnsPer(perCallDirect, loopCalls);
    const runLoop = await loopTurnsPer(oneCallRun, loopCalls);
    // Not a cheat: every call through arbiter left its row in the SQLite audit log.
    await audit.flush();
    const { rows } = store.database.prepare('SELECT count(*) AS rows FROM audit_log').get() as { rows: number };
    if (rows < arbiterCalls) throw new Error(`${arbiterCalls} calls through arbiter left only ${rows} audit rows`);

    const overhead = target({
      id: 'mcp_call_overhead_vs_sdk',
      description:
        'wall time arbiter adds to one MCP tool call (tool-call pipeline with validation, gate, SQLite audit, MCP client and stdio) over a direct SDK call, as a fraction: the median over pairs of back-to-back blocks',
      value: pipeline.wall.median,
      comparison: '<=',
      limit: 0.1,
    });
    const figures = (measurement: PairedMeasurement) => ({
      wallMicroseconds: measurement.subject.wallNanoseconds / 1000,
      cpuMicroseconds: measurement.subject.cpuMicroseconds,
      serverCpuMicroseconds: (measurement.subject.counters.serverCpu ?? Number.NaN) / 1000,
      directWallMicroseconds: measurement.baseline.wallNanoseconds / 1000,
      directCpuMicroseconds: measurement.baseline.cpuMicroseconds,
      addedWall: measurement.wall,
      addedCpu: measurement.cpu,
      collectionMicrosecondsPerCall: collectedPerCall(measurement.blocks.subject),
      directCollectionMicrosecondsPerCall: collectedPerCall(measurement.blocks.baseline),
    });
    return {
      lines: [
        `mcp: an MCP tool call (server-everything echo, stdio, same server process and pipe); ${pairs} pairs of ${callsPerBlock}-call blocks, one through arbiter and one direct, back to back, the order swapped pair by pair`,
        header,
        row('direct SDK client callTool', pipeline.baseline, collectedPerCall(pipeline.blocks.baseline)),
        row(
          "through arbiter's tool-call pipeline (runToolCall)",
          pipeline.subject,
          collectedPerCall(pipeline.blocks.subject),
          pipeline,
        ),
        `    parse, validation, brake, bind, tier gate, time limit, MCP client and stdio, result, SQLite audit (${rows} rows, committed inside each block), events (${delivered} delivered)`,
        `  breakdown, each against the direct call the same way (${breakdownPairs} pairs):`,
        row(
          '  same, in-memory audit log instead',
          memoryAudit.subject,
          collectedPerCall(memoryAudit.blocks.subject),
          memoryAudit,
        ),
        row(
          "  the mounted tool's execute alone (the MCP client)",
          clientAlone.subject,
          collectedPerCall(clientAlone.blocks.subject),
          clientAlone,
        ),
        row(
          '  one-call runAgent run (2 model turns + the call)',
          run.subject,
          collectedPerCall(run.blocks.subject),
          run,
        ),
        '  added: median over the pairs of (its block / the direct block) - 1; CPU: this process, every thread; server: its CPU, every thread;',
        "  GC: the collector's pauses that began in the side's blocks, summed, per call; wait, srv wait: time the bench's and the server's main thread were ready to run but had no CPU (other load)",
        `  event-loop iterations per call: direct ${sdkLoop.turns.toFixed(2)} (${sdkLoop.events.toFixed(2)} I/O events), through arbiter ${arbiterLoop.turns.toFixed(2)} (${arbiterLoop.events.toFixed(2)} I/O events), one-call run ${runLoop.turns.toFixed(2)}`,
        `  arbiter adds per call (wall): ${formatVerdict(overhead)}; ${spread(pipeline.wall)}`,
        `  arbiter adds per call (bench CPU): ${pipeline.cpu.median.toFixed(3)}; ${spread(pipeline.cpu)}`,
      ],
      ratios: {
        mcpCallOverheadVersusSdk: pipeline.wall.median,
        mcpCallCpuOverheadVersusSdk: pipeline.cpu.median,
        mcpOneCallRunOverheadVersusSdk: run.wall.median,
      },
      figures: {
        pairs,
        breakdownPairs,
        callsPerBlock,
        directMicroseconds: pipeline.baseline.wallNanoseconds / 1000,
        directCpuMicroseconds: pipeline.baseline.cpuMicroseconds,
        directServerCpuMicroseconds: (pipeline.baseline.counters.serverCpu ?? Number.NaN) / 1000,
        arbiter: figures(pipeline),
        memoryAudit: figures(memoryAudit),
        mcpClientOnly: figures(clientAlone),
        oneCallRun: figures(run),
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
