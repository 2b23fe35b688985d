import type { ToolDefinition } from '@arbiter-runtime/core';
import type { EvalToolkitFactory } from '@arbiter-runtime/core/evaluation';
import { openShopDatabase, ShopDatabase } from './shop-database.js';
import { createShopDomain } from './shop-domain.js';
import { ShopUsageError } from './shop-usage-error.js';

/**
 * A repository that never finds an order, for the retry-storm case.
 * `"toolkitOptions": {"repository": "always_not_found"}`.
 */
class NotFoundShopDatabase extends ShopDatabase {
  override findOrder(): undefined {
    return undefined;
  }
}

/**
 * The demo shop as an evaluation toolkit, wired by `createShopDomain` as
 * the demo and the server are: a fresh in-memory database per
 * case, a fixed clock, the shop's gate rules (the refund hard cap; the
 * tool's own rule approves refunds under 50.00 yuan and sends larger ones to
 * a person), and `state()` reporting how many refunds and order notes exist
 * (the seed has 2 refunds and no notes).
 *
 * @example
 * await runSuite({ suite: loadSuite({ directory: 'evals/shop' }), toolkits: { shop: shopEvalToolkit } });
 */
export const shopEvalToolkit: EvalToolkitFactory = (options) => {
  const repository = options['repository'];
  if (repository !== undefined && repository !== 'always_not_found') {
    throw new ShopUsageError({
      message: `shop toolkit: repository must be "always_not_found", got ${JSON.stringify(repository)}`,
    });
  }
  const refunds = options['refunds'];
  if (refunds !== undefined && refunds !== 'interrupted_once' && refunds !== 'lost_once') {
    throw new ShopUsageError({
      message: `shop toolkit: refunds must be "interrupted_once" or "lost_once", got ${JSON.stringify(refunds)}`,
    });
  }
  const database = openShopDatabase({ path: ':memory:' });
  const count = (table: 'refunds' | 'order_notes') =>
    (database.connection.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
  const { tools, gateRules } = createShopDomain({
    database: repository === undefined ? database : new NotFoundShopDatabase(database.connection),
    now: () => new Date('2026-09-05T08:00:00Z'),
  });
  return {
    tools: refunds === undefined ? tools : tools.map((tool) => interruptFirstRefund(tool, refunds)),
    gateRules,
    state: () => ({ refunds: count('refunds'), notes: count('order_notes') }),
    close: () => database.close(),
  };
};

/**
 * `apply_refund` whose first call is interrupted until the run stops (its
 * deadline): `interrupted_once` after the refund commits, `lost_once`
 * before it is made. Either way the call ends with no recorded outcome, as
 * when the process dies mid-call; later calls run normally.
 */
function interruptFirstRefund(tool: ToolDefinition, mode: 'interrupted_once' | 'lost_once'): ToolDefinition {
  if (tool.name !== 'apply_refund') return tool;
  let interrupted = false;
  return {
    ...tool,
    execute: async (args, context) => {
      if (interrupted) return tool.execute(args, context);
      interrupted = true;
      if (mode === 'interrupted_once') await tool.execute(args, context);
      // Polled, not awaited as an event: the run's deadline timer does not keep the process alive by itself.
      while (!context.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 10));
      throw context.signal.reason;
    },
  };
}
