import { MockLanguageModelV2 } from 'ai/test';

/** The order id the task's call at `step` asks for; the same in every compared runtime. */
export const orderId = (step: number): string => `SO2026${String(step).padStart(4, '0')}`;

/**
 * The AI SDK side of the benchmark task: a zero-latency mock model that asks
 * for `query_order` on every step before the last, then answers "done".
 * `onCall` runs at the start of every model call (e.g. to stamp the time).
 *
 * @example
 * const result = await generateText({ model: aiSdkTaskModel(20), tools, prompt: 'go', stopWhen: stepCountIs(21) });
 */
export function aiSdkTaskModel(steps: number, onCall?: () => void): MockLanguageModelV2 {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: async () => {
      onCall?.();
      step += 1;
      const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
      if (step < steps) {
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `call_${step}`,
              toolName: 'query_order',
              input: `{"order_id":"${orderId(step)}"}`,
            },
          ],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] };
    },
  });
}
