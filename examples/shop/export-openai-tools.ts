import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ToolRegistry, type ToolSpec } from '@arbiter-runtime/core';
import { openShopDatabase } from './shop-database.js';
import { createShopTools } from './shop-tools.js';

/** Where the committed export lives; a test keeps it equal to {@link exportShopToolsForOpenAi}. */
export const shopToolsOpenAiFile = fileURLToPath(new URL('./shop-tools.openai.json', import.meta.url));

/**
 * The shop's five tools exactly as a model is sent them, in OpenAI
 * function-calling format: bound parameters (`user_id`) removed by the
 * registry, everything else as defined.
 *
 * @example
 * const specs = exportShopToolsForOpenAi();
 * specs.map((spec) => spec.function.name); // ['query_order', 'track_shipment', …]
 */
export function exportShopToolsForOpenAi(): readonly ToolSpec[] {
  const database = openShopDatabase({ path: ':memory:' });
  try {
    const registry = new ToolRegistry();
    for (const tool of createShopTools({ database })) registry.register(tool);
    return registry.specs;
  } finally {
    database.close();
  }
}

// `npx tsx examples/shop/export-openai-tools.ts` rewrites the committed file.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(shopToolsOpenAiFile, `${JSON.stringify(exportShopToolsForOpenAi(), null, 2)}\n`);
  // The repository's formatter owns the layout of JSON files; without it `npm run check` would flag the file.
  execFileSync('npx', ['biome', 'format', '--write', shopToolsOpenAiFile], { stdio: 'inherit' });
  console.log(`wrote ${shopToolsOpenAiFile}`);
}
