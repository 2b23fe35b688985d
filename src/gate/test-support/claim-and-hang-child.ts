/**
 * Child process for the live-owner reconcile test: claims the fixture
 * refund's key in the SQLite database at DB_PATH as the refund's call would
 * (tenant `shop`, user `C1001`), prints `claimed` and runs until it is killed,
 * as a node still executing the refund does.
 * Usage: node --import tsx src/gate/test-support/claim-and-hang-child.ts DB_PATH
 */
import { openSqliteBackend } from '../../store/sqlite/open-sqlite-backend.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: claim-and-hang-child.ts DB_PATH');
const backend = openSqliteBackend({ path });
const claim = await backend.idempotency.claim({
  key: 'refund:SO20260901:2000',
  claimant: { tenantId: 'shop', userId: 'C1001' },
  runId: 'run_0',
  toolCallId: 'call_0',
  tool: 'apply_refund',
});
process.stdout.write(`${claim.status}\n`);
setInterval(() => {}, 1_000);
