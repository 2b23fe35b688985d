/**
 * `npm run bench`: every benchmark, one after another in this process, so
 * ratios compare figures measured under the same conditions. Not a test:
 * the figures go in the issue notes, never in assertions.
 */
import { runEventsBench } from './events-bench.js';
import { runLoopBench } from './loop-bench.js';
import { runSseBench } from './sse-bench.js';
import { runStoreBench } from './store-bench.js';
import { runValidationBench } from './validation-bench.js';

type Bench = () => Promise<{ lines: string[]; ratios: Record<string, number> }>;

const benches: [name: string, run: Bench][] = [
  ['validation', runValidationBench],
  ['loop', runLoopBench],
  ['events', runEventsBench],
  ['store', runStoreBench],
  ['sse', runSseBench],
];

const only = process.argv.slice(2);
console.log(`arbiter bench — node ${process.version}, ${new Date().toISOString()}`);
for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log('');
  const { lines } = await run();
  for (const line of lines) console.log(line);
}
