/**
 * @module
 * The shop, wired once: its tools, the gate rules over them (the refund
 * hard cap), what a real model is told, and the offline models' scripts.
 * The demo (`shop-demo.ts`), the evaluation toolkit (`arbiter eval`) and
 * the server (`arbiter serve`, by default or as `--tools
 * examples/shop/shop-domain.js`) all build the shop from here, so a rule
 * added here holds everywhere.
 */
import { join } from 'node:path';
import type { GateRule, Locale, ToolDefinition } from '@arbiter-runtime/core';
import type { ToolsModule, ToolsModuleContext } from '@arbiter-runtime/core/server';
import type { Script } from '@arbiter-runtime/core/testing';
import demoEnglishScript from './scripts/order-status.en.json' with { type: 'json' };
import demoChineseScript from './scripts/order-status.zh-CN.json' with { type: 'json' };
import chatEnglishScript from './scripts/shop-chat.en.json' with { type: 'json' };
import chatChineseScript from './scripts/shop-chat.zh-CN.json' with { type: 'json' };
import { openShopDatabase, type ShopDatabase } from './shop-database.js';
import { createShopTools, shopGateRules } from './shop-tools.js';

/** The shop's tools and the gate rules that belong with them. */
export interface ShopDomain {
  readonly tools: readonly ToolDefinition[];
  readonly gateRules: readonly GateRule[];
}

/** A shop on its own database, ready to serve and to close. */
export interface OpenShopDomain extends ShopDomain, ToolsModule {
  readonly database: ShopDatabase;
}

/**
 * The shop's tools on `database` with its gate rules (`shopGateRules`: no
 * refund above 5000.00 yuan, whatever a person decides).
 *
 * @example
 * const { tools, gateRules } = createShopDomain({ database: openShopDatabase({ path: ':memory:' }) });
 * const gate = createTierGate({ rules: gateRules, tools: registry });
 */
export function createShopDomain({
  database,
  now,
  locale,
}: {
  database: ShopDatabase;
  now?: () => Date;
  /** The language of the tools' descriptions (see `shopToolTexts`). Default `en`. */
  locale?: Locale;
}): ShopDomain {
  return {
    tools: createShopTools({
      database,
      ...(now === undefined ? {} : { now }),
      ...(locale === undefined ? {} : { locale }),
    }),
    gateRules: shopGateRules,
  };
}

/**
 * The shop on its database file in `dataDir` (`shop.db`; `:memory:`
 * keeps nothing), seeded on first open.
 *
 * @example
 * const shop = openShopDomain({ dataDir: '.arbiter' });
 * try { serve(shop.tools, shop.gateRules) } finally { shop.close() }
 */
export function openShopDomain({
  dataDir,
  now,
  locale,
}: {
  dataDir: string;
  now?: () => Date;
  locale?: Locale;
}): OpenShopDomain {
  const database = openShopDatabase({ path: dataDir === ':memory:' ? ':memory:' : join(dataDir, 'shop.db') });
  return {
    ...createShopDomain({
      database,
      ...(now === undefined ? {} : { now }),
      ...(locale === undefined ? {} : { locale }),
    }),
    database,
    close: () => database.close(),
  };
}

/**
 * The shop as a tools module (`arbiter serve --tools …/shop-domain.js`):
 * tools, gate rules and the database's close, in `dataDir`.
 *
 * @example
 * const { tools, gateRules, close } = createTools({ dataDir: '.arbiter' });
 */
export function createTools({ dataDir }: ToolsModuleContext): OpenShopDomain {
  return openShopDomain({ dataDir });
}

/** What a real model is told about its job in the shop. */
export const shopSystemPrompts: Readonly<Record<Locale, string>> = {
  en:
    'You are the customer service assistant of an online shop. Use the tools to look up orders, shipments and ' +
    'refunds of the signed-in customer; never guess. Amounts are in cents (fen). Answer briefly and plainly.',
  'zh-CN':
    '你是一家网店的客服助手。请使用工具查询当前登录顾客的订单、物流和退款，不要猜测。金额单位为分。回答简短、直白。',
};

/** The server's offline chat (`arbiter serve`): an order question, a large refund, a fallback. */
export const shopChatScripts: Readonly<Record<Locale, Script>> = {
  en: chatEnglishScript as Script,
  'zh-CN': chatChineseScript as Script,
};

/** The terminal demo's script (`arbiter demo`): a malformed order number corrected, then two refunds. */
export const shopDemoScripts: Readonly<Record<Locale, Script>> = {
  en: demoEnglishScript as Script,
  'zh-CN': demoChineseScript as Script,
};
