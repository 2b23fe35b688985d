import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { groupMessageUnits, toolPairingProblems } from '../core/message-units.js';
import { compressContext, type Summarize } from './compress-context.js';
import { countConversationTokens } from './count-message-tokens.js';
import { buildConversation, isWriteTool, type PlannedTurn } from './test-support/conversations.js';

const tools = ['query_order', 'track_shipment', 'query_refund', 'save_note', 'apply_refund'] as const;

const plannedCall = fc.record({
  tool: fc.constantFrom(...tools),
  resultChars: fc.integer({ min: 40, max: 2500 }),
});

const plannedTurn: fc.Arbitrary<PlannedTurn> = fc.record(
  {
    user: fc.string({ minLength: 1, maxLength: 200 }),
    batches: fc.array(fc.array(plannedCall, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
    answer: fc.string({ maxLength: 300 }),
    unanswered: fc.integer({ min: 0, max: 2 }),
  },
  { requiredKeys: ['user', 'batches'] },
);

const scenario = fc.record({
  turns: fc.array(plannedTurn, { minLength: 1, maxLength: 7 }),
  targetShare: fc.double({ min: 0.05, max: 1, noNaN: true }),
  slots: fc.dictionary(fc.constantFrom('order_id', 'amount_cents', 'reason'), fc.oneof(fc.string(), fc.integer())),
  summarise: fc.boolean(),
});

const summarize: Summarize = async ({ messages }) => ({
  text: `Earlier: ${messages.length} messages about orders.`,
  usage: { inputTokens: 50, outputTokens: 10 },
});

/** Every message of the result is one the compression had to keep: nothing removable is left. */
function onlyKeptVerbatim(result: readonly ChatMessage[], original: readonly ChatMessage[]): boolean {
  const units = groupMessageUnits(original.slice(1));
  const lastUser = original.findLastIndex((message) => message.role === 'user');
  const lastUnit = units.at(-1);
  const protectedMessages = new Set<ChatMessage>([original[0] as ChatMessage, original[lastUser] as ChatMessage]);
  for (const message of lastUnit?.messages ?? []) protectedMessages.add(message);
  for (const unit of units) {
    const head = unit.messages[0];
    if (head?.role === 'assistant' && (head.tool_calls ?? []).some((call) => isWriteTool(call.function.name)))
      for (const message of unit.messages) protectedMessages.add(message);
  }
  const protectedIds = new Set(
    [...protectedMessages].flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])),
  );
  return result.every(
    (message) =>
      protectedMessages.has(message) ||
      message.role === 'system' ||
      (message.role === 'tool' && protectedIds.has(message.tool_call_id)),
  );
}

describe('compressContext (property)', () => {
  it('never separates tool calls from their tool messages, keeps what must stay verbatim, and fits the target', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, targetShare, slots, summarise }) => {
        const messages = buildConversation({ system: 'You are the shop assistant.', turns });
        const options = { messages, isWriteTool, pinned: { slots }, ...(summarise ? { summarize } : {}) };
        const before = countConversationTokens({ messages });
        // The least compression can reach: everything removable removed.
        const floor = await compressContext({ ...options, targetTokens: 0 });
        if (summarise) expect(onlyKeptVerbatim(floor.messages, messages)).toBe(true);
        const targetTokens = floor.tokensAfter + Math.floor(Math.max(0, before - floor.tokensAfter) * targetShare);
        const result = await compressContext({ ...options, targetTokens });

        // It fits any target at or above what must stay, and says so honestly.
        expect(result.tokensAfter).toBe(countConversationTokens({ messages: result.messages }));
        expect(result.fits).toBe(true);
        expect(result.tokensAfter).toBeLessThanOrEqual(targetTokens);
        for (const compressed of [result, floor]) {
          // Pairing: every call answered exactly once inside its unit; only the original's open tail may stay open.
          expect(toolPairingProblems(compressed.messages)).toEqual([]);
          expect(toolPairingProblems(compressed.messages, { allowUnansweredTail: false }).length).toBeLessThanOrEqual(
            toolPairingProblems(messages, { allowUnansweredTail: false }).length,
          );
          // The system message first, the latest step last, both untouched.
          expect(compressed.messages[0]).toBe(messages[0]);
          expect(compressed.messages.at(-1)).toBe(messages.at(-1));
          // The current request and every write result, verbatim.
          expect(compressed.messages).toContain(messages.findLast((message) => message.role === 'user'));
          for (const message of writeResults(messages)) expect(compressed.messages).toContain(message);
          // Confirmed parameters, verbatim, whenever anything was compressed.
          if (compressed.stage !== 'none' && Object.keys(slots).length > 0) {
            expect(compressed.messages.some((message) => message.content?.includes(JSON.stringify(slots)))).toBe(true);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

function writeResults(messages: readonly ChatMessage[]): ChatMessage[] {
  const writes = new Set(
    messages.flatMap((message) =>
      message.role === 'assistant'
        ? (message.tool_calls ?? []).filter((call) => isWriteTool(call.function.name)).map((call) => call.id)
        : [],
    ),
  );
  return messages.filter((message) => message.role === 'tool' && writes.has(message.tool_call_id));
}
