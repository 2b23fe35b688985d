/**
 * arbiter on AI SDK providers: Claude (with extended thinking) answers,
 * Gemini takes over when Anthropic keeps failing; every tool call is still
 * validated by arbiter, and the thinking goes back to Claude on every step.
 *
 * Run it with `ANTHROPIC_API_KEY=… GOOGLE_GENERATIVE_AI_API_KEY=… npx tsx
 * examples/ai-sdk/claude-with-gemini-fallback.ts`.
 */
import { pathToFileURL } from 'node:url';
import { anthropic } from '@ai-sdk/anthropic';
import { google } from '@ai-sdk/google';
import {
  defineTool,
  EventBus,
  type PriceTable,
  ResilientModel,
  type RunResult,
  runAgent,
  ToolRegistry,
} from '@arbiter-runtime/core';
import { type AiSdkLanguageModel, aiSdkModel } from '@arbiter-runtime/core/ai-sdk';

const tools = new ToolRegistry().register(
  defineTool<{ order_id: string }>({
    name: 'query_order',
    description: 'Look up one order by its number: status and date. Not for refunds.',
    parameters: {
      type: 'object',
      properties: {
        order_id: {
          type: 'string',
          description: 'Order number, "SO" + 8 digits',
          pattern: '^SO\\d{8}$',
          examples: ['SO20260901'],
        },
      },
      required: ['order_id'],
    },
    sideEffect: 'read',
    execute: ({ order_id }) => ({ order_id, status: 'shipped', placed_at: '2026-09-01' }),
  }),
);

/** Per million tokens, under each model's id. */
const prices: PriceTable = {
  'claude-sonnet-4-5': { inputPerMillion: 3, cachedInputPerMillion: 0.3, outputPerMillion: 15 },
  'gemini-2.5-flash': { inputPerMillion: 0.3, cachedInputPerMillion: 0.075, outputPerMillion: 2.5 },
};

/** Asks `question` of Claude, Gemini as its fallback; the text streams to `write`. */
export async function ask({
  question,
  claude = anthropic('claude-sonnet-4-5'),
  gemini = google('gemini-2.5-flash'),
  write = (text: string) => process.stdout.write(text),
}: {
  question: string;
  claude?: AiSdkLanguageModel;
  gemini?: AiSdkLanguageModel;
  write?: (text: string) => void;
}): Promise<RunResult> {
  const model = new ResilientModel({
    primary: aiSdkModel(claude, {
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    }),
    fallback: aiSdkModel(gemini),
    policy: { fallbackOn: ['server', 'response', 'rate_limited'] },
  });
  const events = new EventBus();
  const stop = events.subscribe((event) => {
    if (event.type === 'model:delta') write(event.text);
  });
  try {
    return await runAgent({
      model,
      tools,
      prices,
      events,
      limits: { maxSteps: 8, costBudget: 0.5 },
      messages: [
        { role: 'system', content: 'You are the shop assistant. Look orders up before answering.' },
        { role: 'user', content: question },
      ],
    });
  } finally {
    await events.idle();
    stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await ask({ question: 'Where is my order SO20260901?' });
  console.log(`\n[${result.stopReason}] ${result.steps} steps, cost ${result.cost?.toFixed(4) ?? 'unknown'}`);
}
