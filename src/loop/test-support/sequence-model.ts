import type { AssistantMessage, ChatMessage } from '../../core/chat-message.js';
import type { TokenUsage } from '../../core/run-usage.js';
import type { Model, ModelRequest, ModelResponse } from '../../models/model.js';

export interface SequenceModel extends Model {
  /** Every request the loop made, in order. */
  readonly requests: ModelRequest[];
}

/**
 * A test double: answers with the given assistant messages in order (or a
 * function of the conversation), then with a plain "done".
 */
export function sequenceModel(
  replies: readonly (AssistantMessage | ((messages: readonly ChatMessage[]) => AssistantMessage))[],
  { usage = { inputTokens: 10, outputTokens: 5 } }: { usage?: TokenUsage } = {},
): SequenceModel {
  const requests: ModelRequest[] = [];
  return {
    name: 'sequence',
    requests,
    async generate(request): Promise<ModelResponse> {
      request.signal?.throwIfAborted();
      requests.push(request);
      const reply = replies[requests.length - 1] ?? { role: 'assistant', content: 'done' };
      const message = typeof reply === 'function' ? reply(request.messages) : reply;
      return { message, usage, finishReason: message.tool_calls === undefined ? 'stop' : 'tool_calls' };
    },
  };
}

let counter = 0;

/** An assistant message calling the given tools; arguments as objects or raw strings. */
export function calls(...entries: readonly [name: string, args: unknown][]): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: entries.map(([name, args]) => {
      counter += 1;
      return {
        id: `call_${counter}`,
        type: 'function' as const,
        function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      };
    }),
  };
}
