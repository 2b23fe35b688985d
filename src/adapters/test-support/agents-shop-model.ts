import { type AgentInputItem, type Model, type ModelRequest, type ModelResponse, Usage } from '@openai/agents';
import type { createShopBrain } from './shop-model-brain.js';

/**
 * The shop brain behind OpenAI Agents' own `Model` interface, scripted:
 * the run's input (user messages, function calls and their results) is
 * read as the brain's prompt, and its turn becomes a function call or an
 * assistant message.
 */
export class AgentsShopModel implements Model {
  readonly #brain: ReturnType<typeof createShopBrain>;

  constructor(brain: ReturnType<typeof createShopBrain>) {
    this.#brain = brain;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.#brain.turn(promptOf(request.input));
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    if (turn.kind === 'call') {
      return {
        usage,
        output: [
          {
            type: 'function_call',
            callId: turn.toolCallId,
            name: turn.toolName,
            arguments: turn.input,
            status: 'completed',
          },
        ],
      };
    }
    return {
      usage,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: turn.text }],
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the scripted model answers whole responses only.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted shop model does not stream');
  }
}

function promptOf(input: string | AgentInputItem[]): { role: string; content: unknown }[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const prompt: { role: string; content: unknown }[] = [];
  for (const item of input) {
    if ('role' in item && item.role === 'user') prompt.push({ role: 'user', content: item.content });
    else if (item.type === 'function_call') prompt.push({ role: 'assistant', content: [] });
    else if (item.type === 'function_call_result') {
      const output = item.output as unknown;
      const value =
        typeof output === 'string' ? output : ((output as { text?: string }).text ?? JSON.stringify(output));
      prompt.push({ role: 'tool', content: [{ type: 'tool-result', output: { type: 'text', value } }] });
    }
  }
  return prompt;
}
