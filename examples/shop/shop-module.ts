/**
 * @module
 * The shop as one module, the way arbiter loads a domain it is not given:
 * `arbiter serve` and `startServer` without tools, `arbiter demo`,
 * `approve`, `undo`, `sessions` and `arbiter eval`'s default suite resolve
 * this file at run time (in the package: `dist/examples/shop/shop-module.js`),
 * and nothing in arbiter imports it. It is a tools module
 * (`createTools`, as `arbiter serve --tools` loads one) with what the
 * commands need besides: the offline chat's scripts, the system prompts,
 * the terminal demo, the shop's tools on a demo data directory, and the
 * evaluation suite with its toolkit.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolRegistry } from '@arbiter-runtime/core';
import { openShopDatabase } from './shop-database.js';
import { shopChatScripts, shopSystemPrompts } from './shop-domain.js';
import { shopEvalToolkit } from './shop-eval-toolkit.js';
import { createShopTools } from './shop-tools.js';
import { ShopUsageError } from './shop-usage-error.js';

export { resumeShopDemo as resumeDemo, runShopDemo as runDemo } from './shop-demo.js';
export { createTools } from './shop-domain.js';

/**
 * The offline chat's script per language (`arbiter serve` without `--model` or `--script`).
 *
 * @example
 * new ScriptedModel({ script: chatScripts.en });
 */
export const chatScripts = shopChatScripts;

/**
 * What a real model is told about its job in the shop, per language.
 *
 * @example
 * startServer({ tools, model, systemPrompt: (locale) => systemPrompts[locale] });
 */
export const systemPrompts = shopSystemPrompts;

/**
 * The shop's evaluation suite (`arbiter eval` without `--suite`), shipped with the example.
 *
 * @example
 * loadSuite({ directory: evalSuite });
 */
export const evalSuite = fileURLToPath(new URL('../../evals/shop', import.meta.url));

/**
 * The toolkits the shop's suites name.
 *
 * @example
 * await runSuite({ suite: loadSuite({ directory: evalSuite }), toolkits: evalToolkits });
 */
export const evalToolkits = { shop: shopEvalToolkit };

/**
 * The shop's tools on the demo's database in `dataDir` (`shop.db`), for
 * commands that act on the demo's data (`arbiter undo`, `arbiter sessions`);
 * `:memory:` opens a fresh one. With `mustExist`, a data directory without
 * the demo's database is a `ShopUsageError`, and nothing is created.
 *
 * @example
 * const shop = openDemoTools({ dataDir: '.arbiter', mustExist: true });
 * try { await undoToolCall({ tools: shop.tools, … }) } finally { shop.close() }
 */
export function openDemoTools({ dataDir, mustExist = false }: { dataDir: string; mustExist?: boolean }): {
  tools: ToolRegistry;
  close: () => void;
} {
  const path = dataDir === ':memory:' && !mustExist ? ':memory:' : join(dataDir, 'shop.db');
  if (mustExist && !existsSync(path)) {
    throw new ShopUsageError({ message: `no shop database at ${path}: undo rolls back the shop demo's calls` });
  }
  const database = openShopDatabase({ path });
  const tools = new ToolRegistry();
  for (const tool of createShopTools({ database })) tools.register(tool);
  return { tools, close: () => database.close() };
}
