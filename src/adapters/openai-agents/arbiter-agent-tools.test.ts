import { Agent, RunState, run, setTracingDisabled } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTokens } from '../../server/test-support/test-server.js';
import { AgentsShopModel } from '../test-support/agents-shop-model.js';
import { openShopGateFixture, principals, type ShopGateFixture } from '../test-support/shop-gate-fixture.js';
import { createShopBrain } from '../test-support/shop-model-brain.js';
import { arbiterAgentTools } from './arbiter-agent-tools.js';

/**
 * OpenAI Agents' `run` with `arbiterAgentTools`: its own `Model` interface
 * scripted on the shop, the shop example's tools, and a real `arbiter
 * serve` whose `POST /v1/approvals/:id` is where staff decide. The run's
 * interruption is the gate's decision; approving it in the program does
 * not run anything until arbiter holds an approval.
 */
let fixture: ShopGateFixture;
beforeAll(async () => {
  setTracingDisabled(true);
  fixture = await openShopGateFixture();
});
afterAll(async () => fixture?.close());

function shopAgent(principal: (typeof principals)[keyof typeof principals], conversationId: string) {
  return new Agent({
    name: 'shop',
    instructions: 'You are the shop assistant.',
    model: new AgentsShopModel(createShopBrain({ prefix: conversationId })),
    tools: arbiterAgentTools(fixture.registry, fixture.options(principal, conversationId)),
  });
}

function callIdOf(item: { rawItem: unknown } | undefined): string {
  return (item?.rawItem as { callId?: string } | undefined)?.callId ?? '';
}

function textOf(item: { rawItem: unknown } | undefined): string {
  return (item?.rawItem as { output?: { text?: string } } | undefined)?.output?.text ?? '';
}

async function decide(approvalId: string, token: string) {
  return fixture.server.request(`/v1/approvals/${approvalId}`, {
    token,
    method: 'POST',
    body: { decision: 'approve' },
  });
}

describe('arbiterAgentTools in OpenAI Agents’ run', () => {
  it('corrects the call, interrupts on the refund, runs nothing on the program’s own approval, runs once on the approver’s', async () => {
    const before = fixture.refunds('SO20260902').length;
    const agent = shopAgent(principals.alice, 'thread-alice');
    const first = await run(agent, 'Please refund 80 yuan on SO20260902, the mug arrived chipped.');
    // The malformed order id came back as arbiter's message; the corrected call waits for a person.
    const results = first.newItems.filter((item) => item.type === 'tool_call_output_item');
    expect(textOf(results[0])).toContain('^SO\\d{8}$');
    expect(first.interruptions).toHaveLength(1);
    const interruption = first.interruptions[0];
    const callId = callIdOf(interruption);
    const approval = fixture.announced.find((entry) => entry.toolCallId === callId);
    expect(approval?.approvalId).toMatch(/^ap_/);

    // The program approves the interruption itself: the tool is invoked, and arbiter answers that it waits.
    first.state.approve(interruption as NonNullable<typeof interruption>);
    const second = await run(agent, first.state);
    expect(second.finalOutput).toContain(
      `was NOT executed: it awaits the approval of a member of staff (approval ${approval?.approvalId})`,
    );
    expect(fixture.refunds('SO20260902')).toHaveLength(before);

    // Staff approve through the server; the customer asks again; the call runs, once.
    expect((await decide(approval?.approvalId as string, testTokens.staff)).body).toMatchObject({
      decision: 'approved',
    });
    const third = await run(agent, [...second.history, { role: 'user', content: 'Has my refund gone through?' }]);
    expect(third.interruptions).toHaveLength(0);
    expect(third.finalOutput).toContain('"status":"processing"');
    expect(fixture.refunds('SO20260902')).toHaveLength(before + 1);
    const rows = fixture.audit.listAudit({}).filter((row) => row.tool === 'apply_refund' && row.userId === 'C1001');
    expect(rows.map((row) => [row.decision, row.approver, row.outcome])).toEqual([['approved', 'S9001', 'ok']]);
  });

  it('answers an approved call invoked again (a run resumed from the same saved state) from the recorded result', async () => {
    const before = fixture.refunds('SO20260906').length;
    const agent = shopAgent(principals.bob, 'thread-bob');
    const first = await run(agent, 'Refund 60 yuan on SO20260906, the parcel was crushed.');
    const interruption = first.interruptions[0];
    const callId = callIdOf(interruption);
    const approval = fixture.announced.find((entry) => entry.toolCallId === callId);
    expect((await decide(approval?.approvalId as string, testTokens.staff)).status).toBe(202);
    first.state.approve(interruption as NonNullable<typeof interruption>);
    const saved = first.state.toString();

    const ran = await run(agent, first.state);
    expect(ran.finalOutput).toContain('"status":"processing"');
    expect(fixture.refunds('SO20260906')).toHaveLength(before + 1);
    // The same saved state resumed again (a worker that crashed after the refund, retried): the tool is invoked again.
    const again = await run(agent, await RunState.fromString(agent, saved));
    expect(again.finalOutput).toBe(ran.finalOutput);
    expect(fixture.refunds('SO20260906')).toHaveLength(before + 1);
    const rows = fixture.audit.listAudit({}).filter((row) => row.toolCallId === callId);
    expect(rows.map((row) => row.outcome)).toEqual(['ok', 'replayed:ok']);
  });
});
