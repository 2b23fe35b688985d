/**
 * `npm run bench`: every benchmark, one after another in this process, so
 * ratios compare figures measured under the same conditions (the leak
 * check runs in a child process with --expose-gc). Not a test: the
 * figures go in the issue notes and the README, never in assertions.
 *
 * `npm run bench -- loop events` or `BENCH_ONLY=loop,events` runs some.
 * Every target is printed with MET/MISSED and, with every figure, written
 * as one JSON document to dist-bench/results.json (the targets also as the
 * last line, prefixed `targets:`), so the README table is filled from one run.
 *
 * `npm run bench -- compare REV` instead compares this checkout's per-step
 * paths with revision REV's, side by side (`compare-revisions.ts`);
 * `npm run bench -- guard [--update]` counts what a step asks of SQLite
 * against the committed baseline, or writes it (`step-guard.ts`).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runAgUiBench } from './ag-ui-bench.js';
import { runAgentPathsBench } from './agent-paths-bench.js';
import { runAiSdkToolsBench } from './ai-sdk-tools-bench.js';
import { runAuditChainBench } from './audit-chain-bench.js';
import { runClusterBench, runClusterTenantsBench } from './cluster-bench.js';
import { compareRevisions, parseCompareArguments } from './compare-revisions.js';
import { runEnginesBench } from './engines-bench.js';
import { runEventsBench } from './events-bench.js';
import { runLangGraphBench } from './langgraph-bench.js';
import { runLeakBench } from './leak-bench.js';
import { runLoopBench } from './loop-bench.js';
import { runMcpBench } from './mcp-bench.js';
import type { BenchResult, Target } from './measure.js';
import { runMemoryBench } from './memory-bench.js';
import { runRoutingBench } from './routing-bench.js';
import { runSessionBench } from './session-bench.js';
import { runSseBench } from './sse-bench.js';
import { runStepGuard } from './step-guard.js';
import { runStoreBench } from './store-bench.js';
import { runUiStreamBench } from './ui-stream-bench.js';
import { runValidationBench } from './validation-bench.js';

const benches: [name: string, run: () => Promise<BenchResult>][] = [
  ['validation', runValidationBench],
  ['loop', runLoopBench],
  ['paths', runAgentPathsBench],
  ['langgraph', runLangGraphBench],
  ['events', runEventsBench],
  ['leak', runLeakBench],
  ['store', runStoreBench],
  ['audit-chain', runAuditChainBench],
  ['sse', runSseBench],
  ['cluster', runClusterBench],
  ['cluster-tenants', runClusterTenantsBench],
  ['session', runSessionBench],
  ['routing', runRoutingBench],
  ['ui-stream', runUiStreamBench],
  ['mcp', runMcpBench],
  ['memory', runMemoryBench],
  ['ag-ui', runAgUiBench],
  ['ai-sdk', () => runAiSdkToolsBench()],
  ['engines', runEnginesBench],
];

if (process.argv[2] === 'guard') {
  const { lines, ok } = await runStepGuard({ update: process.argv.includes('--update') });
  for (const line of lines) console.log(line);
  process.exit(ok ? 0 : 1);
}

if (process.argv[2] === 'compare') {
  const { lines } = await compareRevisions(parseCompareArguments(process.argv.slice(3)));
  for (const line of lines) console.log(line);
  process.exit(0);
}

const only = [
  ...process.argv.slice(2).filter((argument) => !argument.startsWith('--')),
  ...(process.env.BENCH_ONLY ?? '').split(',').filter((name) => name.trim() !== ''),
].map((name) => name.trim());
const unknown = only.filter((name) => !benches.some(([known]) => known === name));
if (unknown.length > 0) {
  throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${benches.map(([name]) => name).join(', ')}`);
}

const startedAt = new Date();
console.log(`arbiter bench — node ${process.version}, ${cpus().length} CPUs, ${startedAt.toISOString()}`);
const results: Record<string, { ratios: Record<string, number>; figures?: Record<string, unknown>; seconds: number }> =
  {};
const targets: (Target & { bench: string })[] = [];
for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log('');
  const began = performance.now();
  const result = await run();
  for (const line of result.lines) console.log(line);
  results[name] = {
    ratios: result.ratios,
    ...(result.figures === undefined ? {} : { figures: result.figures }),
    seconds: (performance.now() - began) / 1000,
  };
  for (const entry of result.targets ?? []) targets.push({ ...entry, bench: name });
}

if (targets.length > 0) {
  console.log('');
  console.log(`targets: ${targets.filter((entry) => entry.met).length} of ${targets.length} met`);
  for (const entry of targets) {
    console.log(
      `  ${entry.met ? 'MET   ' : 'MISSED'} ${entry.id}: ${entry.value.toFixed(3)} ${entry.comparison} ${entry.limit}`,
    );
  }
}
const document = {
  node: process.version,
  cpus: cpus().length,
  startedAt: startedAt.toISOString(),
  seconds: (Date.now() - startedAt.getTime()) / 1000,
  targets,
  benches: results,
};
const file = fileURLToPath(new URL('../results.json', import.meta.url));
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
console.log('');
console.log(`wrote ${file}`);
console.log(
  `targets: ${JSON.stringify(Object.fromEntries(targets.map((entry) => [entry.id, { value: entry.value, met: entry.met }])))}`,
);
