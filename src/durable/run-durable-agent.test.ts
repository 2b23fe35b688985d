import { describe, expect, it } from 'vitest';
import type { DurableSteps } from '../core/durable-steps.js';
import type { ApprovalBroker, ApprovalRequest } from '../gate/approval-broker.js';
import { createTierGate } from '../gate/tier-gate.js';
import { calls, sequenceModel } from '../loop/test-support/sequence-model.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { approvalSignalTopic, runDurableAgent } from './run-durable-agent.js';

/** An engine in memory whose signals are handed in by the test; steps run at once. */
function signalledSteps(signals: unknown[]) {
  const waited: { topic: string; timeoutMs: number }[] = [];
  const steps: DurableSteps = {
    step: (_name, run) => run(),
    now: () => 1_000,
    newId: () => 'run-signalled',
    waitForSignal: <Payload>(options: { topic: string; timeoutMs: number }) => {
      waited.push(options);
      return signals.shift() as Payload | undefined;
    },
  };
  return { steps, waited };
}

/** Pending until the test decides; then the decision, as arbiter's store would answer on resume. */
function decidedLater() {
  const requests: ApprovalRequest[] = [];
  let decided: 'approved' | undefined;
  const broker: ApprovalBroker = {
    decide: async (request, { onRequired }) => {
      requests.push(request);
      if (decided === 'approved') return { status: 'approved', approvalId: 'approval-1', approver: 'boss' };
      onRequired?.('approval-1');
      return { status: 'pending', approvalId: 'approval-1' };
    },
  };
  return { broker, requests, approve: () => (decided = 'approved') };
}

function refundRegistry(effects: string[]) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ order_id: string }>({
      name: 'refund_order',
      description: 'Refund an order in full. Not to look one up: use query_order.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'irreversible',
      approval: () => ({ verdict: 'require_approval', rule: 'refunds_checked', reason: 'Refunds are checked.' }),
      execute: ({ order_id }) => {
        effects.push(order_id);
        return { refunded: true };
      },
    }),
  );
  return registry;
}

describe('runDurableAgent', () => {
  it('waits for the approval signal and resumes the same run once it comes', async () => {
    const effects: string[] = [];
    const approvals = decidedLater();
    const signals: unknown[] = [];
    const { steps, waited } = signalledSteps(signals);
    const model = sequenceModel([
      calls(['refund_order', { order_id: 'SO20260901' }]),
      { role: 'assistant', content: 'Refunded.' },
    ]);
    signals.push({ runId: 'run-signalled' });
    // The signal is "there" once the run waits for it: decide before handing it over.
    const originalWait = steps.waitForSignal.bind(steps);
    const withDecision: DurableSteps = {
      ...steps,
      waitForSignal: (options) => {
        approvals.approve();
        return originalWait(options);
      },
    };
    const result = await runDurableAgent({
      model,
      tools: refundRegistry(effects),
      messages: [{ role: 'user', content: 'Refund SO20260901.' }],
      steps: withDecision,
      approvals: approvals.broker,
      gate: createTierGate(),
      approvalWaitMs: 60_000,
      heartbeatMs: 0,
    });
    expect(result.runId).toBe('run-signalled');
    expect(result.stopReason).toBe('completed');
    expect(effects).toEqual(['SO20260901']);
    expect(waited).toEqual([{ topic: approvalSignalTopic, timeoutMs: 60_000 }]);
    expect(model.requests).toHaveLength(2);
  });

  it('ends awaiting approval when no signal comes before the deadline', async () => {
    const effects: string[] = [];
    const approvals = decidedLater();
    const { steps } = signalledSteps([]);
    const result = await runDurableAgent({
      model: sequenceModel([calls(['refund_order', { order_id: 'SO20260902' }])]),
      tools: refundRegistry(effects),
      messages: [{ role: 'user', content: 'Refund SO20260902.' }],
      steps,
      approvals: approvals.broker,
      gate: createTierGate(),
      heartbeatMs: 0,
    });
    expect(result.stopReason).toBe('awaiting_approval');
    expect(effects).toEqual([]);
  });
});
