import { loadToolsModule } from '@arbiter-runtime/core/server';
import { describe, expect, it } from 'vitest';
import { openShopDatabase } from './shop-database.js';
import { createShopDomain, openShopDomain } from './shop-domain.js';
import { shopEvalToolkit } from './shop-eval-toolkit.js';
import { refundHardCapCents } from './shop-tools.js';

const toolNames = ['query_order', 'track_shipment', 'query_refund', 'add_order_note', 'apply_refund'];

describe('shop domain', () => {
  it('wires the tools with the refund hard cap', () => {
    const database = openShopDatabase({ path: ':memory:' });
    try {
      const { tools, gateRules } = createShopDomain({ database });
      expect(tools.map((tool) => tool.name).sort()).toEqual([...toolNames].sort());
      expect(gateRules).toEqual([
        expect.objectContaining({
          tool: 'apply_refund',
          when: { field: 'amount_cents', above: refundHardCapCents },
          effect: 'deny',
          rule: 'refund_hard_cap',
        }),
      ]);
    } finally {
      database.close();
    }
  });

  it('is what the evaluation toolkit and the server default use, and loads as a tools module', async () => {
    const domain = openShopDomain({ dataDir: ':memory:' });
    const { gateRules } = domain;
    const toolkit = shopEvalToolkit({});
    const served = await loadToolsModule({ path: 'examples/shop/shop-module.ts', context: { dataDir: ':memory:' } });
    const loaded = await loadToolsModule({ path: 'examples/shop/shop-domain.ts', context: { dataDir: ':memory:' } });
    try {
      expect(toolkit.gateRules).toEqual(gateRules);
      expect(served.gateRules).toEqual(gateRules);
      expect(loaded.gateRules).toEqual(gateRules);
      expect(loaded.tools.map((tool) => tool.name).sort()).toEqual([...toolNames].sort());
    } finally {
      await domain.close();
      toolkit.close?.();
      await served.close();
      await loaded.close();
    }
  });
});
