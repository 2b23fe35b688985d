import { openShopDomain } from '../../../examples/shop/shop-domain.js';
import type { Principal } from '../../core/principal.js';
import { EventBus } from '../../events/event-bus.js';
import { createTierGate } from '../../gate/tier-gate.js';
import { startTestServer, type TestServer } from '../../server/test-support/test-server.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../../store/sqlite/sqlite-idempotency-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ArbiterApprovalRequest, ArbiterLoopOptions } from '../gate-bridge.js';

/** The customers and the approver of `testAuth` (the server's tokens), as an application's own login knows them. */
export const principals = {
  alice: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
  bob: { tenantId: 'shop', userId: 'C1002', roles: ['customer'] },
} as const satisfies Record<string, Principal>;

/**
 * A real `arbiter serve` (the approvals routes, SQLite store, bearer auth
 * of `testAuth`) and, beside it, an application's shop: the shop example's
 * tools on their own database, the shop's gate rules, and arbiter's stores
 * of the server (approvals, runs, idempotency claims, audit) for the
 * application's loop to use.
 */
export interface ShopGateFixture {
  readonly server: TestServer;
  readonly registry: ToolRegistry;
  readonly audit: SqliteAuditLog;
  readonly events: EventBus;
  /** What every `approval:required` of the application's loop told `onApprovalRequired`. */
  readonly announced: ArbiterApprovalRequest[];
  /** The options of one request of `principal` in `conversationId`. */
  options(principal: Principal, conversationId: string): ArbiterLoopOptions;
  /** The refunds of order `orderId` of tenant `shop` in the application's shop. */
  refunds(orderId: string): readonly { amount_cents: number; status: string }[];
  close(): Promise<void>;
}

export async function openShopGateFixture({
  locale = 'en',
}: {
  locale?: 'en' | 'zh-CN';
} = {}): Promise<ShopGateFixture> {
  const server = await startTestServer();
  const shop = openShopDomain({ dataDir: ':memory:' });
  const registry = new ToolRegistry();
  for (const tool of shop.tools) registry.register(tool);
  const gate = createTierGate({ rules: shop.gateRules, tools: registry });
  const database = server.server.store.database;
  const audit = new SqliteAuditLog({ database });
  const idempotency = new SqliteIdempotencyStore({ database });
  const events = new EventBus();
  const announced: ArbiterApprovalRequest[] = [];
  return {
    server,
    registry,
    audit,
    events,
    announced,
    options: (principal, conversationId) => ({
      principal,
      conversationId,
      gate,
      approvals: server.server.approvals,
      runs: server.server.runs,
      idempotency,
      audit,
      events,
      locale,
      onApprovalRequired: (approval) => announced.push(approval),
    }),
    refunds: (orderId) => shop.database.listRefunds({ tenantId: 'shop', orderId }),
    close: async () => {
      await server.stop();
      shop.close();
    },
  };
}
