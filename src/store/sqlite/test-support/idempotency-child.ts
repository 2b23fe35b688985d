/**
 * Child process for the killed-process test: claims the key of a payment,
 * starts executing it, prints `executing` and hangs until it is killed.
 * Usage: node --import tsx src/store/sqlite/test-support/idempotency-child.ts DB_PATH
 */
import { runAgent } from '../../../loop/run-agent.js';
import { callsWithIds, openGateHarness, statelessModel } from './gate-harness.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: idempotency-child.ts DB_PATH');
const keepAlive = setInterval(() => {}, 1_000);
const harness = openGateHarness({
  path,
  // Killed, its claim is judged abandoned after a second of silence.
  claimLeaseMs: 1_000,
  onExecute: async () => {
    process.stdout.write('executing\n');
    await new Promise(() => {});
  },
});
await runAgent({
  ...harness.runOptions,
  model: statelessModel([callsWithIds(['call_pay', 'send_payment', killedPayment()])]),
  messages: [{ role: 'user', content: 'Pay INV-5' }],
});
clearInterval(keepAlive);

function killedPayment() {
  return { account: 'AC2002', amount_cents: 5_000, reference: 'INV-5' };
}
