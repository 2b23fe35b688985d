import { openShopDomain, shopChatScripts, shopSystemPrompts } from '../../examples/shop/shop-domain.js';
import type { Locale } from '../core/locale.js';
import type { Model } from '../models/model.js';
import { ScriptedModel } from '../models/scripted-model.js';
import type { ToolsModule } from './load-tools-module.js';
import { type StreamingDelay, withStreamingDelay } from './with-streaming-delay.js';

/**
 * @module
 * The server's default domain: the shop example, taken whole from its
 * wiring module (`examples/shop/shop-domain.ts`: tools, gate rules,
 * prompts, scripts), so the server enforces exactly what the demo and the
 * evaluation do, and the rest of `src/server` stays domain-free.
 */

export { shopSystemPrompts };

/**
 * The shop's tools and gate rules on its database in `dataDir` (`:memory:`
 * keeps nothing), as a tools module.
 *
 * @example
 * const { tools, gateRules, close } = openDefaultDomain({ dataDir: '.arbiter' });
 */
export function openDefaultDomain({ dataDir }: { dataDir: string }): ToolsModule {
  return openShopDomain({ dataDir });
}

/**
 * The offline chat model for a language, slowed to a human pace so the
 * page shows typing and streaming (pass `false` for full speed).
 *
 * @example
 * const model = shopChatModel({ locale: 'en', delay: { firstTokenMs: 400, deltaMs: 15 } });
 */
export function shopChatModel({
  locale,
  delay = { firstTokenMs: 400, deltaMs: 15 },
}: {
  locale: Locale;
  delay?: StreamingDelay | false;
}): Model {
  const model = new ScriptedModel({ script: shopChatScripts[locale] });
  return delay === false ? model : withStreamingDelay(model, delay);
}
