/**
 * Per-call overhead of an MCP tool through arbiter: one call of
 * server-everything's `echo` (stdio) as a one-call run of `runAgent` —
 * parse, validate against the mounted `inputSchema`, tier gate, audit row
 * (SQLite), events to a subscriber, the MCP client and its transport,
 * result into a tool message — against the official SDK client calling the
 * same tool of the same server directly, interleaved in the same process.
 * Target: arbiter adds at most 10% to the call.
 *
 * `node dist-bench/bench/mcp-bench.js` runs it alone.
 */
import { resolve } from 'node:path';
import type { AssistantMessage } from '../src/core/chat-message.js';
import { EventBus } from '../src/events/event-bus.js';
import { createTierGate } from '../src/gate/tier-gate.js';
import { runAgent } from '../src/loop/run-agent.js';
import { McpServerMount } from '../src/mcp/client/mcp-server-mount.js';
import type { Model } from '../src/models/model.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import {
  type BenchResult,
  formatMicroseconds,
  formatVerdict,
  isMainModule,
  measureInterleaved,
  target,
} from './measure.js';

const everythingBin = resolve('node_modules/.bin/mcp-server-everything');
const message = 'bench message';

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
    const throughArbiter = async () => {
      const result = await runAgent({
        model,
        tools: registry,
        gate,
        audit,
        events,
        messages: [{ role: 'user', content: 'echo' }],
        principal: { tenantId: 'bench', userId: 'u1', roles: [] },
      });
      if (result.stopReason !== 'completed') throw new Error(`bench run ended ${result.stopReason}`);
    };
    const directCall = async () => {
      const result = await direct.callTool({ name: 'echo', arguments: { message } });
      if (result.isError === true) throw new Error('direct call failed');
    };
    // Warm both paths (JIT, the servers' first calls).
    for (let index = 0; index < 50; index += 1) {
      await throughArbiter();
      await directCall();
    }
    const [arbiter, sdk] = await measureInterleaved({
      operations: [throughArbiter, directCall],
      iterations: 40,
      rounds: 21,
    });
    if (arbiter === undefined || sdk === undefined) throw new Error('no measurement');
    const added = (arbiter.nanosecondsPerOperation - sdk.nanosecondsPerOperation) / sdk.nanosecondsPerOperation;
    const overhead = target({
      id: 'mcp_call_overhead_vs_sdk',
      description: 'time arbiter adds to an MCP tool call (one-call run) over a direct SDK call, as a fraction',
      value: added,
      comparison: '<=',
      limit: 0.1,
    });
    return {
      lines: [
        'mcp: an MCP tool call (server-everything echo, stdio), interleaved, median of 21 rounds × 40 calls',
        `  direct SDK client callTool                    ${formatMicroseconds(sdk.nanosecondsPerOperation)}`,
        `  through arbiter (runAgent, one-call run)      ${formatMicroseconds(arbiter.nanosecondsPerOperation)}`,
        `    validation, tier gate, SQLite audit, events, MCP client and transport, tool message (${delivered} events delivered)`,
        `  arbiter adds: ${formatVerdict(overhead)}`,
      ],
      ratios: { mcpCallOverheadVersusSdk: added },
      figures: {
        directMicroseconds: sdk.nanosecondsPerOperation / 1000,
        arbiterMicroseconds: arbiter.nanosecondsPerOperation / 1000,
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
