/**
 * Per-step overhead of arbiter's loop against the Vercel AI SDK's
 * `generateText`, both driving the same 20-step task (19 tool calls to a
 * no-op tool, then an answer) on a zero-latency model, in one process.
 */
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import type { AssistantMessage } from '../src/core/chat-message.js';
import { EventBus } from '../src/events/event-bus.js';
import { runAgent } from '../src/loop/run-agent.js';
import type { Model } from '../src/models/model.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import { aiSdkTaskModel, orderId } from './ai-sdk-task-model.js';
import { formatMicroseconds, isMainModule, measure } from './measure.js';

const steps = 20;

function arbiterTask() {
  const registry = new ToolRegistry().register(
    defineTool<{ order_id: string; note?: string }>({
      name: 'query_order',
      description: 'Look up one order. Not for shipments: use track_shipment.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
          note: { type: 'string', description: 'Optional note', maxLength: 200 },
        },
        required: ['order_id'],
        additionalProperties: false,
      },
      sideEffect: 'read',
      execute: () => ({ ok: true }),
    }),
  );
  const model: Model = {
    name: 'zero-latency',
    async generate({ messages }) {
      const step = messages.filter((message) => message.role === 'assistant').length + 1;
      const message: AssistantMessage =
        step < steps
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${step}`,
                  type: 'function',
                  function: { name: 'query_order', arguments: `{"order_id":"${orderId(step)}"}` },
                },
              ],
            }
          : { role: 'assistant', content: 'done' };
      return {
        message,
        usage: { inputTokens: 10, outputTokens: 5 },
        finishReason: message.tool_calls ? 'tool_calls' : 'stop',
      };
    },
  };
  const events = new EventBus();
  events.subscribe(() => {});
  return async () => {
    const result = await runAgent({
      model,
      tools: registry,
      messages: [{ role: 'user', content: 'go' }],
      limits: { maxSteps: steps + 1 },
      events,
    });
    if (result.stopReason !== 'completed' || result.steps !== steps) {
      throw new Error(`arbiter task ended ${result.stopReason} after ${result.steps} steps`);
    }
  };
}

function aiSdkTask() {
  const tools = {
    query_order: tool({
      description: 'Look up one order. Not for shipments: use track_shipment.',
      inputSchema: z
        .object({
          order_id: z.string().regex(/^SO\d{8}$/),
          note: z.string().max(200).optional(),
        })
        .strict(),
      execute: async () => ({ ok: true }),
    }),
  };
  return async () => {
    const model = aiSdkTaskModel(steps);
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(steps + 1) });
    if (result.steps.length !== steps) throw new Error(`AI SDK task ended after ${result.steps.length} steps`);
  };
}

export async function runLoopBench(): Promise<{ lines: string[]; ratios: Record<string, number> }> {
  const arbiter = await measure({ operation: arbiterTask(), iterations: 200 });
  const aiSdk = await measure({ operation: aiSdkTask(), iterations: 50 });
  const arbiterStep = arbiter.nanosecondsPerOperation / steps;
  const aiSdkStep = aiSdk.nanosecondsPerOperation / steps;
  const ratio = arbiterStep / aiSdkStep;
  return {
    lines: [
      `loop: ${steps}-step task, zero-latency model, no-op tool, median of 7 rounds`,
      `  arbiter runAgent     ${formatMicroseconds(arbiterStep)} per step`,
      `  AI SDK generateText  ${formatMicroseconds(aiSdkStep)} per step`,
      `  ratio arbiter / AI SDK per step: ${ratio.toFixed(3)} (target <= 0.100) ${ratio <= 0.1 ? 'MET' : 'MISSED'}`,
    ],
    ratios: { loopStepVersusAiSdk: ratio },
  };
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runLoopBench();
  for (const line of lines) console.log(line);
}
