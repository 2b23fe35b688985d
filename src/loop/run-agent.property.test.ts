import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage } from '../core/chat-message.js';
import { stopReasons } from '../core/stop-reason.js';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runAgent } from './run-agent.js';
import { sequenceModel } from './test-support/sequence-model.js';

type Mode = 'ok' | 'retryable' | 'fatal' | 'infrastructure' | 'abort';

const callArbitrary = fc.record({
  name: fc.constantFrom('query_order', 'track_shipment', 'no_such_tool'),
  arguments: fc.oneof(
    fc
      .record({
        order_id: fc.constantFrom('SO20260901', 'SO20260902', 'bad', 12345),
        mode: fc.constantFrom<Mode>('ok', 'ok', 'ok', 'retryable', 'fatal', 'infrastructure', 'abort'),
      })
      .map((value) => JSON.stringify(value)),
    fc.constantFrom('{"order_id": "SO2026', '[]', '42', 'null', '', '{"mode": "ok"}'),
  ),
});

const turnArbitrary = fc.oneof(
  { weight: 1, arbitrary: fc.constant<readonly { name: string; arguments: string }[]>([]) },
  { weight: 4, arbitrary: fc.array(callArbitrary, { minLength: 1, maxLength: 4 }) },
);

function registryFor(abort: AbortController) {
  const registry = new ToolRegistry();
  for (const name of ['query_order', 'track_shipment']) {
    registry.register(
      defineTool<{ order_id: string; mode?: Mode }>({
        name,
        description: `${name} for the property test. Not for anything else: use the sibling.`,
        parameters: {
          type: 'object',
          properties: {
            order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$' },
            mode: { type: 'string', enum: ['ok', 'retryable', 'fatal', 'infrastructure', 'abort'] },
          },
          required: ['order_id'],
        },
        sideEffect: 'read',
        execute: async ({ order_id, mode = 'ok' }, context) => {
          if (mode === 'retryable') throw new RetryableToolError({ code: 'not_found', message: 'Not found.' });
          if (mode === 'fatal') throw new FatalToolError({ code: 'locked', message: 'Locked.' });
          if (mode === 'infrastructure') throw new Error('connection refused');
          if (mode === 'abort') {
            abort.abort();
            context.signal.throwIfAborted();
          }
          return { order_id };
        },
      }),
    );
  }
  return registry;
}

let idCounter = 0;

function toAssistant(turn: readonly { name: string; arguments: string }[]): AssistantMessage {
  if (turn.length === 0) return { role: 'assistant', content: 'answer' };
  return {
    role: 'assistant',
    content: null,
    tool_calls: turn.map((call) => {
      idCounter += 1;
      return { id: `call_${idCounter}`, type: 'function' as const, function: call };
    }),
  };
}

/** Every assistant tool call is followed, at once and in order, by exactly one tool message for it. */
function assertPairing(messages: readonly ChatMessage[]): void {
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    if (message?.role === 'tool') throw new Error(`tool message ${message.tool_call_id} answers no pending call`);
    if (message?.role !== 'assistant' || message.tool_calls === undefined) continue;
    const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
    expect(answers.map((answer) => (answer.role === 'tool' ? answer.tool_call_id : `<${answer.role}>`))).toEqual(
      message.tool_calls.map((call) => call.id),
    );
    index += message.tool_calls.length;
  }
}

describe('runAgent pairing (property)', () => {
  it('gives every tool_call_id exactly one tool message, in order, whatever the model sends and whichever brake trips', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArbitrary, { minLength: 1, maxLength: 8 }),
        fc.record({
          maxSteps: fc.integer({ min: 1, max: 8 }),
          tokenBudget: fc.integer({ min: 10, max: 200 }),
          maxIdenticalCalls: fc.integer({ min: 1, max: 3 }),
          maxConsecutiveFailures: fc.integer({ min: 1, max: 3 }),
        }),
        async (turns, limits) => {
          const abort = new AbortController();
          const model = sequenceModel(turns.map(toAssistant), { usage: { inputTokens: 10, outputTokens: 5 } });
          const result = await runAgent({
            model,
            tools: registryFor(abort),
            messages: [{ role: 'user', content: 'go' }],
            limits,
            signal: abort.signal,
          });
          expect(stopReasons).toContain(result.stopReason);
          assertPairing(result.messages);
        },
      ),
      { numRuns: 400 },
    );
    // 400 whole runs take about 20 s on one free core; a busy 2-core machine needs more than vitest's default.
  }, 120_000);
});
