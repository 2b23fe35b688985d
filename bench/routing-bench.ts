/**
 * Tool routing: (1) the time `routeTools` takes to choose the tools of one
 * step from 1,000 mounted tools (target under 1 ms per request), for the
 * 120 requests of the routing set (English and Chinese), with the index
 * already built, and the time to build it once; (2) the tool-definition
 * tokens per step with and without routing on the routing set (56 tools,
 * top 6), as `arbiter eval --experiment routing` reports them.
 *
 * The 1,000 tools are the routing set's 56, each repeated for eighteen
 * brands (`query_order_acme`, "For the Acme store: …") so that names and
 * words repeat the way they do across many MCP servers.
 *
 * Run alone with `npx tsx bench/routing-bench.ts`.
 */
import { existsSync } from 'node:fs';
import type { ChatMessage } from '../src/core/chat-message.js';
import { evaluateRouting } from '../src/evaluation/routing-evaluation.js';
import { builtInRoutingSet, readRoutingSet } from '../src/evaluation/routing-set.js';
import { routeTools } from '../src/routing/route-tools.js';
import { ToolSearchIndex } from '../src/routing/tool-search-index.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import { type BenchResult, formatVerdict, isMainModule, measure, target } from './measure.js';

const brands = [
  'acme',
  'globex',
  'initech',
  'umbrella',
  'hooli',
  'stark',
  'wayne',
  'wonka',
  'tyrell',
  'cyberdyne',
  'soylent',
  'aperture',
  'massive',
  'vandelay',
  'oscorp',
  'gringotts',
  'monarch',
  'nakatomi',
];
const toolCount = 1_000;

/**
 * Measures routing latency over 1,000 tools and the tokens routing saves
 * on the routing set; returns printable lines, figures and the target.
 *
 * @example
 * const { lines } = await runRoutingBench();
 */
export async function runRoutingBench(): Promise<BenchResult> {
  // Compiled to dist-bench/, the set is not beside the code: read it from the checkout (npm run bench runs there).
  const set = readRoutingSet(existsSync(builtInRoutingSet) ? builtInRoutingSet : 'evals/routing');
  const large = new ToolRegistry();
  outer: for (const brand of brands) {
    for (const tool of set.tools.names) {
      if (large.names.length >= toolCount) break outer;
      const definition = set.tools.get(tool)?.definition;
      if (definition === undefined) continue;
      const title = brand.charAt(0).toUpperCase() + brand.slice(1);
      large.register({
        ...definition,
        name: `${tool}_${brand}`,
        description: `For the ${title} store: ${definition.description}`,
      });
    }
  }
  const conversations: ChatMessage[][] = set.queries.map((query) => [{ role: 'user', content: query.query }]);

  // The first build reads every definition; later ones (another set of the same tools) reuse what was read.
  const coldStarted = performance.now();
  new ToolSearchIndex(large.specs);
  const buildMs = performance.now() - coldStarted;
  const rebuilds = 5;
  const warmStarted = performance.now();
  for (let round = 0; round < rebuilds; round += 1) new ToolSearchIndex([...large.specs].reverse());
  const rebuildMs = (performance.now() - warmStarted) / rebuilds;

  let next = 0;
  const perRequest = await measure({
    operation: () => {
      const messages = conversations[next % conversations.length] as ChatMessage[];
      next += 1;
      return routeTools({ tools: large, messages, options: { topK: 6 } });
    },
    iterations: conversations.length * 5,
  });
  const perRequestMs = perRequest.nanosecondsPerOperation / 1e6;
  const latency = target({
    id: 'routing_ms_per_request_1000_tools',
    description: 'routeTools over 1,000 tools, ms per request (index built)',
    value: perRequestMs,
    comparison: '<',
    limit: 1,
  });

  const report = evaluateRouting({ set, topK: 6 });
  const all = report.summaries.at(-1);
  const allTokens = all?.allTokensPerStep ?? 0;
  const routedTokens = all?.routedTokensPerStep ?? 0;
  const lines = [
    `routing — ${large.names.length} tools, ${conversations.length} requests (en, zh-CN), top 6`,
    `  route one step:         ${(perRequestMs * 1000).toFixed(1)} µs per request → ${formatVerdict(latency)}`,
    `  build the index:        ${buildMs.toFixed(1)} ms for ${large.names.length} tools (once), ${rebuildMs.toFixed(1)} ms for another set of the same tools`,
    `  tokens per step (routing set, ${report.tools} tools): ${allTokens} without routing, ${routedTokens.toFixed(0)} with (${((1 - routedTokens / allTokens) * 100).toFixed(1)}% saved); recall@5 ${((all?.recall[5] ?? 0) * 100).toFixed(1)}%`,
  ];
  return {
    lines,
    ratios: { 'routing.tokens_routed_vs_all': allTokens === 0 ? 0 : routedTokens / allTokens },
    targets: [latency],
    figures: {
      tools: large.names.length,
      msPerRequest: perRequestMs,
      indexBuildMs: buildMs,
      indexRebuildMs: rebuildMs,
      tokensPerStepAllTools: allTokens,
      tokensPerStepRouted: routedTokens,
      recallAt1: all?.recall[1],
      recallAt3: all?.recall[3],
      recallAt5: all?.recall[5],
    },
  };
}

if (isMainModule(import.meta.url)) {
  const result = await runRoutingBench();
  for (const line of result.lines) console.log(line);
}
