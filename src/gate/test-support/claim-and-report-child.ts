/**
 * Child process for the cross-namespace reconcile test: presents the fixture
 * refund's key as a resumed refund would (its `reconcile` answers "not
 * happened"), completes the claim when it wins it (the refund made), and
 * prints one JSON line: the answer's status and the keys `reconcile` was
 * asked about.
 * Usage: node --import tsx src/gate/test-support/claim-and-report-child.ts (sqlite PATH | postgres URL SCHEMA)
 *   [--lease-ms N] [--clock-offset-ms N]
 */
import { claimIdempotencyKey } from '../claim-idempotency-key.js';
import { openClaimChildStore } from './claim-child-store.js';
import { gatedCallFixture } from './gated-call-fixture.js';

const backend = await openClaimChildStore(process.argv.slice(2));
const asked: string[] = [];
const { runtime, call } = gatedCallFixture({
  runtime: { idempotency: backend.idempotency },
  tool: {
    idempotencyKey: (args) => `refund:${String(args.order_id)}:${String(args.amount_cents)}`,
    reconcile: (_args, key) => {
      asked.push(key);
      return { status: 'not_happened' };
    },
  },
});
const claim = await claimIdempotencyKey(runtime, { ...call, toolCallId: 'call_resumed' });
if (claim?.status === 'claimed') await claim.complete({ ok: true, data: { refund_no: 'RF-second' } });
process.stdout.write(`${JSON.stringify({ status: claim?.status, asked })}\n`);
await backend.close();
