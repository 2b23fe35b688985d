/**
 * Child process for the live-owner reconcile tests: claims the fixture
 * refund's key (tenant `shop`, user `C1001`) as the refund's call would,
 * prints `claimed` and runs until it is killed, as a node still executing
 * the refund does (renewing its claim all the while).
 * Usage: node --import tsx src/gate/test-support/claim-and-hang-child.ts (sqlite PATH | postgres URL SCHEMA)
 *   [--lease-ms N] [--clock-offset-ms N]
 */
import { openClaimChildStore } from './claim-child-store.js';

const backend = await openClaimChildStore(process.argv.slice(2));
const claim = await backend.idempotency.claim({
  key: 'refund:SO20260901:2000',
  claimant: { tenantId: 'shop', userId: 'C1001' },
  runId: 'run_0',
  toolCallId: 'call_0',
  tool: 'apply_refund',
});
process.stdout.write(`${claim.status}\n`);
setInterval(() => {}, 1_000);
