import { join } from 'node:path';
import { openShopDatabase, type ShopDatabase } from '../../examples/shop/shop-database.js';
import { createShopTools } from '../../examples/shop/shop-tools.js';
import type { Model } from '../models/model.js';
import type { Script } from '../models/script.js';
import { ScriptedModel } from '../models/scripted-model.js';
import type { Locale, ToolDefinition } from '../tools/tool-types.js';
import englishScript from './scripts/shop-chat.en.json' with { type: 'json' };
import chineseScript from './scripts/shop-chat.zh-CN.json' with { type: 'json' };
import { type StreamingDelay, withStreamingDelay } from './with-streaming-delay.js';

/**
 * The server's default domain: the shop example. Everything shop-specific
 * the server uses is here, so the rest of `src/server` stays domain-free.
 */

/** The chat script of the offline model: an order question, a large refund, a fallback. */
export const shopChatScripts: Readonly<Record<Locale, Script>> = {
  en: englishScript as Script,
  'zh-CN': chineseScript as Script,
};

/** What a real model is told about its job in the shop. */
export const shopSystemPrompts: Readonly<Record<Locale, string>> = {
  en:
    'You are the customer service assistant of an online shop. Use the tools to look up orders, shipments and ' +
    'refunds of the signed-in customer; never guess. Amounts are in cents (fen). Answer briefly and plainly.',
  'zh-CN':
    '你是一家网店的客服助手。请使用工具查询当前登录顾客的订单、物流和退款，不要猜测。金额单位为分。回答简短、直白。',
};

/**
 * The shop's database and tools in `dataDir` (`:memory:` keeps nothing).
 *
 * @example
 * const { tools, close } = openShopTools({ dataDir: '.arbiter' });
 */
export function openShopTools({ dataDir }: { dataDir: string }): {
  tools: readonly ToolDefinition[];
  database: ShopDatabase;
  close: () => void;
} {
  const database = openShopDatabase({ path: dataDir === ':memory:' ? ':memory:' : join(dataDir, 'shop.db') });
  return { tools: createShopTools({ database }), database, close: () => database.close() };
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
