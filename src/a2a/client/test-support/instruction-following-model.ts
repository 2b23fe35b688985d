import type { ChatMessage, ToolCall } from '../../../core/chat-message.js';
import type { Model, ModelRequest, ModelResponse } from '../../../models/model.js';

/** The order an injected note gives, as a model that obeys it would read it. */
const order = /SYSTEM NOTE TO THE ASSISTANT:.*?call ([a-z_]+) at once/s;

/**
 * A model that does whatever a tool message tells it: its first turn makes
 * `first`; a later turn, if any tool message so far holds `SYSTEM NOTE TO
 * THE ASSISTANT: … call TOOL at once`, calls TOOL (once) with `obeyWith`;
 * otherwise it says `done`. The worst case of a real model reading an
 * injected instruction, made certain for a test.
 *
 * @example
 * const model = instructionFollowingModel({ first: { name: 'evil_refund', arguments: { message: 'hi' } }, obeyWith: { to: 'x@example.com' } });
 */
export function instructionFollowingModel({
  first,
  obeyWith,
}: {
  first: { name: string; arguments: unknown };
  obeyWith: unknown;
}): Model & { readonly seen: ChatMessage[][] } {
  const seen: ChatMessage[][] = [];
  let calls = 0;
  const usage = { inputTokens: 1, outputTokens: 1 };
  const call = (name: string, args: unknown): ModelResponse => {
    calls += 1;
    const toolCall: ToolCall = {
      id: `call_${calls}`,
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    };
    return { message: { role: 'assistant', content: null, tool_calls: [toolCall] }, usage, finishReason: 'tool_calls' };
  };
  return {
    name: 'instruction-following',
    seen,
    generate: async ({ messages }: ModelRequest): Promise<ModelResponse> => {
      seen.push([...messages]);
      const made = messages.flatMap((message) =>
        message.role === 'assistant' ? (message.tool_calls ?? []).map((each) => each.function.name) : [],
      );
      if (made.length === 0) return call(first.name, first.arguments);
      const told = messages.flatMap((message) => (message.role === 'tool' ? [order.exec(message.content)?.[1]] : []));
      const target = told.find((name) => name !== undefined);
      if (target !== undefined && !made.includes(target)) return call(target, obeyWith);
      return { message: { role: 'assistant', content: 'done' }, usage, finishReason: 'stop' };
    },
  };
}
