import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testTokens } from '../../server/test-support/test-server.js';
import type { ShopGateFixture } from './shop-gate-fixture.js';

/** What the scenarios need of a browser chat: the SDK's `AbstractChat` (what `useChat` wraps), AI SDK 6 or 7. */
export interface ScenarioChat {
  readonly messages: readonly { readonly role: string; readonly parts: readonly unknown[] }[];
  readonly status: string;
  /** Every request body its transport sent. */
  readonly bodies: readonly string[];
  sendMessage(message: { text: string }): Promise<void>;
  addToolApprovalResponse(response: { id: string; approved: boolean }): void | PromiseLike<void>;
}

/**
 * The scenario of an AI SDK `streamText` + `useChat` app on `arbiterTools`,
 * run against a browser chat of the given SDK and the application's chat
 * endpoint: the corrected call, the refund waiting, the customer's own
 * approval refused, the approver's decision running it once, a second
 * `execute` of the same call answered from the recorded result, the audit rows.
 */
export function describeChatScenarios({
  sdk,
  open,
  chat: newChat,
}: {
  sdk: string;
  open: () => Promise<{ fixture: ShopGateFixture; url: string; close: () => Promise<void> }>;
  chat: (options: { url: string; token: string; id: string }) => ScenarioChat;
}): void {
  let fixture: ShopGateFixture;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ fixture, url, close } = await open());
  });
  afterAll(async () => close?.());

  type ToolPart = {
    type: string;
    toolCallId: string;
    state: string;
    approval?: { id: string };
    output?: { status: string; approvalId?: string; error?: { code: string }; data?: Record<string, unknown> };
  };

  function parts(chat: ScenarioChat): readonly { type: string }[] {
    return chat.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.parts as { type: string }[]) : [],
    );
  }

  /** The refund calls in order, each as it stands now (a continued response repeats the parts of the one it continues). */
  function refundParts(chat: ScenarioChat): ToolPart[] {
    const latest = new Map<string, ToolPart>();
    for (const part of parts(chat) as unknown as ToolPart[])
      if (part.type === 'tool-apply_refund') latest.set(part.toolCallId, part);
    return [...latest.values()];
  }

  function arbiterApprovals(chat: ScenarioChat): { approvalId: string; toolCallId: string }[] {
    const latest = new Map<string, { approvalId: string; toolCallId: string }>();
    for (const part of parts(chat)) {
      if (part.type !== 'data-arbiter-approval') continue;
      const data = (part as unknown as { data: { approvalId: string; toolCallId: string } }).data;
      latest.set(data.toolCallId, data);
    }
    return [...latest.values()];
  }

  async function settled(chat: ScenarioChat): Promise<void> {
    await vi.waitFor(() => expect(chat.status).toBe('ready'), { timeout: 10_000 });
  }

  async function decide(approvalId: string, token: string, decision: 'approve' | 'reject' = 'approve') {
    return fixture.server.request(`/v1/approvals/${approvalId}`, { token, method: 'POST', body: { decision } });
  }

  describe(`arbiterTools in an ${sdk} streamText + useChat app`, () => {
    it('corrects the call, holds the refund, refuses the customer’s own approval, runs it once on the approver’s decision', async () => {
      const before = fixture.refunds('SO20260902').length;
      const chat = newChat({ url, token: 'alice-app-token', id: 'chat-alice-1' });
      await chat.sendMessage({ text: 'Please refund 80 yuan on SO20260902, the mug arrived chipped.' });
      await settled(chat);

      // The malformed order id comes back as arbiter's message, and the model corrects it.
      const [wrong, corrected] = refundParts(chat);
      expect(wrong?.output?.status).toBe('error');
      expect(wrong?.output?.error?.code).toBe('pattern_mismatch');
      expect(corrected?.state).toBe('approval-requested');
      // The SDK's approval request carries arbiter's approval, which staff see in their inbox with the bound customer.
      const [approval] = arbiterApprovals(chat);
      expect(approval?.toolCallId).toBe(corrected?.toolCallId);
      const inbox = await fixture.server.request('/v1/approvals', { token: testTokens.staff });
      const listed = (inbox.body.approvals as { approvalId: string; arguments: Record<string, unknown> }[]).find(
        (entry) => entry.approvalId === approval?.approvalId,
      );
      expect(listed?.arguments).toMatchObject({ tenant_id: 'shop', user_id: 'C1001', order_id: 'SO20260902' });
      expect(fixture.refunds('SO20260902')).toHaveLength(before);

      // The customer's own client approves (with the SDK's valid signature): nothing runs, the model is told it waits.
      await chat.addToolApprovalResponse({ id: corrected?.approval?.id as string, approved: true });
      await vi.waitFor(() => expect(refundParts(chat)[1]?.state).toBe('output-available'), { timeout: 10_000 });
      await settled(chat);
      expect(refundParts(chat)[1]?.output).toMatchObject({
        status: 'awaiting_approval',
        approvalId: approval?.approvalId,
      });
      expect(fixture.refunds('SO20260902')).toHaveLength(before);
      // Nor can the customer decide it on the server.
      expect((await decide(approval?.approvalId as string, testTokens.alice)).status).toBe(403);

      // Staff approve through the server; the customer asks again; the same call runs, once.
      const decided = await decide(approval?.approvalId as string, testTokens.staff);
      expect(decided.body).toMatchObject({ decision: 'approved', resumed: false });
      await chat.sendMessage({ text: 'Has my refund gone through?' });
      await settled(chat);
      const ran = refundParts(chat)[2];
      expect(ran?.output?.status).toBe('ok');
      const refunds = fixture.refunds('SO20260902');
      expect(refunds).toHaveLength(before + 1);
      expect(refunds.at(-1)?.amount_cents).toBe(8000);
      // Approved by staff, audited with the approver.
      const rows = fixture.audit.listAudit({}).filter((row) => row.toolCallId === ran?.toolCallId);
      expect(rows.map((row) => [row.decision, row.approver, row.outcome, row.userId])).toEqual([
        ['approved', 'S9001', 'ok', 'C1001'],
      ]);
    });

    it('runs an approved call once when the SDK executes it again, answering from the recorded result', async () => {
      const before = fixture.refunds('SO20260906').length;
      const chat = newChat({ url, token: 'bob-app-token', id: 'chat-bob-1' });
      await chat.sendMessage({ text: 'Refund 60 yuan on SO20260906, the parcel was crushed.' });
      await settled(chat);
      const [approval] = arbiterApprovals(chat);
      const requested = refundParts(chat)[1];
      // Staff decide first this time; then the customer's client sends the approval response, which runs the call.
      expect((await decide(approval?.approvalId as string, testTokens.staff)).status).toBe(202);
      await chat.addToolApprovalResponse({ id: requested?.approval?.id as string, approved: true });
      await vi.waitFor(() => expect(refundParts(chat)[1]?.state).toBe('output-available'), { timeout: 10_000 });
      await settled(chat);
      const first = refundParts(chat)[1]?.output;
      expect(first?.status).toBe('ok');
      expect(fixture.refunds('SO20260906')).toHaveLength(before + 1);

      // The browser sends the very same request again (a retry after a lost response): the SDK executes the call again.
      const retried = chat.bodies.at(-1) as string;
      const response = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { authorization: 'Bearer bob-app-token', 'content-type': 'application/json' },
        body: retried,
      });
      const outputs = (await response.text())
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map(
          (line) => JSON.parse(line.slice('data: '.length)) as { type: string; toolCallId?: string; output?: unknown },
        )
        .filter((chunk) => chunk.type === 'tool-output-available' && chunk.toolCallId === requested?.toolCallId);
      // The recorded result, not a second refund.
      expect(outputs.map((chunk) => chunk.output)).toEqual([first]);
      expect(fixture.refunds('SO20260906')).toHaveLength(before + 1);
      const rows = fixture.audit.listAudit({}).filter((row) => row.toolCallId === requested?.toolCallId);
      expect(rows.map((row) => [row.decision, row.approver, row.outcome])).toEqual([
        ['approved', 'S9001', 'ok'],
        ['approved', 'S9001', 'replayed:ok'],
      ]);
    });
  });
}
