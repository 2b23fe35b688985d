/**
 * What one `arbiterTools` call costs arbiter alone (issue 48): a tool set
 * built per request over one `MemoryAuditLog`, the bench's `query_order`
 * (one bound parameter) called 19 times a request, no AI SDK around it.
 * Plain JavaScript, so it runs against any build's `dist-bench`:
 *
 *   node bench/bridge-call-costs.mjs "$PWD/dist-bench" cpu        # µs of CPU per call
 *   node bench/bridge-call-costs.mjs "$PWD/dist-bench" allocated  # bytes allocated per call (sampling heap profiler)
 *   node --expose-gc bench/bridge-call-costs.mjs "$PWD/dist-bench" retained  # bytes the log keeps per call
 *
 * Each mode first runs 2,000 requests (steady state). `allocated` samples
 * every 64 bytes, collected objects kept, and lists the functions that
 * allocated most (V8's inlining decides which function a share is named
 * after).
 */
import { Session } from 'node:inspector/promises';

const [dist, mode = 'cpu'] = process.argv.slice(2);
if (dist === undefined) throw new Error('usage: bridge-call-costs.mjs <dist-bench folder> [cpu|allocated|retained]');
const { arbiterTools } = await import(`${dist}/src/adapters/ai-sdk/arbiter-tools.js`);
const { MemoryAuditLog } = await import(`${dist}/src/gate/memory-audit-log.js`);
const { createTierGate } = await import(`${dist}/src/gate/tier-gate.js`);
const { defineTool } = await import(`${dist}/src/tools/define-tool.js`);
const { ToolRegistry } = await import(`${dist}/src/tools/tool-registry.js`);
const { denyAllApprovals } = await import(`${dist}/src/gate/approval-broker.js`);

const tools = new ToolRegistry().register(
  defineTool({
    name: 'query_order',
    description: 'Look up one order. Not for shipments: use track_shipment.',
    parameters: {
      type: 'object',
      properties: {
        tenant_id: { type: 'string', description: 'Tenant' },
        order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
        note: { type: 'string', description: 'Optional note', maxLength: 200 },
      },
      required: ['tenant_id', 'order_id'],
      additionalProperties: false,
    },
    boundParameters: { tenant_id: 'tenantId' },
    sideEffect: 'read',
    execute: () => ({ ok: true }),
  }),
);
const gate = createTierGate({ tools });
const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const approvals = { decide: denyAllApprovals.decide, listApprovals: () => [] };
const audit = new MemoryAuditLog();
const calls = 19;
const history = Array.from({ length: 2 * calls }, (_, index) => ({
  role: index % 2 ? 'tool' : 'assistant',
  content: [],
}));
const messagesOf = Array.from({ length: calls + 1 }, (_, step) => history.slice(0, 2 * step - 1));
const orderIds = Array.from({ length: calls + 1 }, (_, step) => `SO2026${String(step).padStart(4, '0')}`);

async function request() {
  const set = arbiterTools(tools, { principal, gate, audit, approvals });
  for (let step = 1; step <= calls; step += 1) {
    await set.query_order.execute(
      { order_id: orderIds[step] },
      { toolCallId: `call_${step}`, messages: messagesOf[step] },
    );
  }
}

for (let index = 0; index < 2_000; index += 1) await request();
if (mode === 'cpu') {
  const requests = 10_000;
  const start = process.cpuUsage();
  for (let index = 0; index < requests; index += 1) await request();
  const used = process.cpuUsage(start);
  console.log(`${((used.user + used.system) / (requests * calls)).toFixed(2)} µs of CPU per call`);
} else if (mode === 'retained') {
  if (globalThis.gc === undefined) throw new Error('run node with --expose-gc');
  const requests = 2_000;
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  for (let index = 0; index < requests; index += 1) await request();
  globalThis.gc();
  console.log(`${((process.memoryUsage().heapUsed - before) / (requests * calls)).toFixed(0)} B retained per call`);
} else {
  const requests = 2_000;
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 64,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let index = 0; index < requests; index += 1) await request();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const bySite = new Map();
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.replace(/^.*\/dist-[a-z]+\//, '')}:${lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const perCall = requests * calls;
  const total = [...bySite.values()].reduce((sum, bytes) => sum + bytes, 0);
  console.log(`${(total / perCall).toFixed(0)} B allocated per call (the harness's own input object and id included)`);
  for (const [site, bytes] of [...bySite].sort((left, right) => right[1] - left[1]).slice(0, 15)) {
    console.log(`${String((bytes / perCall).toFixed(0)).padStart(7)}  ${site}`);
  }
}
