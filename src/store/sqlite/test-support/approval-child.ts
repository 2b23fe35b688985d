/**
 * Child process for the restart test. Prints one JSON line and exits.
 *   start DB_PATH                        starts a run that stops awaiting approval
 *   decide DB_PATH APPROVAL_ID DECISION  records the decision and resumes the run
 */

import { countPayments } from '../../../gate/test-support/payment-tools.js';
import { resumeAfterApproval } from '../../../loop/resume-after-approval.js';
import { runSession } from '../../../loop/run-session.js';
import { callsWithIds, openGateHarness, statelessModel, toolMessage } from './gate-harness.js';

const [mode, path, approvalId, decision] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: approval-child.ts start|decide DB_PATH [APPROVAL_ID approve|reject]');
const harness = openGateHarness({ path });
const model = statelessModel([
  callsWithIds(['call_pay', 'send_payment', { account: 'AC2002', amount_cents: 25_000, reference: 'INV-77' }]),
  { role: 'assistant', content: 'Your payment is handled.' },
]);
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

try {
  if (mode === 'start') {
    const session = await harness.sessions.create({ principal: harness.runOptions.principal });
    const result = await runSession({
      ...harness.runOptions,
      sessions: harness.sessions,
      sessionId: session.id,
      userMessage: 'Pay INV-77',
      model,
      approvals: harness.broker,
    });
    print({
      sessionId: session.id,
      stopReason: result.stopReason,
      approvalIds: harness.broker.listApprovals({ runId: result.runId }).map((approval) => approval.approvalId),
      pid: process.pid,
    });
  } else if (mode === 'decide' && approvalId !== undefined && (decision === 'approve' || decision === 'reject')) {
    const outcome = await resumeAfterApproval({
      ...harness.runOptions,
      sessions: harness.sessions,
      broker: harness.broker,
      approvalId,
      decision,
      approver: 'li.wei',
      model,
    });
    print({
      status: outcome.status,
      stopReason: outcome.status === 'resumed' ? outcome.result.stopReason : undefined,
      toolMessage: outcome.status === 'resumed' ? toolMessage(outcome.result.messages, 'call_pay') : undefined,
      text: outcome.status === 'resumed' ? outcome.result.text : undefined,
      payments: countPayments(harness.store.database),
      pid: process.pid,
    });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} finally {
  harness.store.close();
}
