import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage } from '../core/chat-message.js';
import { readToolFeedback } from './read-tool-feedback.js';
import type { Script } from './script.js';
import { ScriptedModel } from './scripted-model.js';

const tools = [
  {
    type: 'function' as const,
    function: { name: 'query_order', description: 'Look up an order.', parameters: { type: 'object' } },
  },
];

const script: Script = {
  name: 'test',
  turns: [
    {
      steps: [
        { call: { name: 'query_order', arguments: { order_id: 12345, status: 'shiped' } } },
        { say: 'Order {{query_order.order_id}} is {{query_order.status}}.' },
      ],
    },
  ],
};

function toolReply(content: string): ChatMessage[] {
  return [{ role: 'tool', tool_call_id: 'call_1', content }];
}

async function next(model: ScriptedModel, messages: readonly ChatMessage[]): Promise<AssistantMessage> {
  return (await model.generate({ messages, tools })).message;
}

describe('ScriptedModel', () => {
  const user: ChatMessage = { role: 'user', content: 'Where is order 12345? The email says SO20260901.' };

  it('follows its script: a call first', async () => {
    const model = new ScriptedModel({ script });
    const first = await next(model, [user]);
    expect(first.tool_calls?.[0]?.function).toEqual({
      name: 'query_order',
      arguments: '{"order_id":12345,"status":"shiped"}',
    });
  });

  it('fixes fields named in the message, from the pattern, the user’s words and the allowed values', async () => {
    const model = new ScriptedModel({ script });
    const first = await next(model, [user]);
    const message = [
      'The call to query_order was not run: 2 problems with its arguments. Fix all of them and call query_order again.',
      '- `order_id`: expected a string matching ^SO\\d{8}$ (Order number). Valid example: "SO20260901". You sent the number 12345.',
      '- `status`: expected one of the allowed values (Order status). Allowed values: "paid", "shipped". You sent the string "shiped".',
    ].join('\n');
    const second = await next(model, [user, first, ...toolReply(message)]);
    expect(JSON.parse(second.tool_calls?.[0]?.function.arguments ?? '')).toEqual({
      order_id: 'SO20260901',
      status: 'shipped',
    });
    expect(second.tool_calls?.[0]?.id).not.toBe(first.tool_calls?.[0]?.id);
  });

  it('asks the user when the conversation holds no value of the required shape', async () => {
    const model = new ScriptedModel({ script });
    const vague: ChatMessage = { role: 'user', content: 'Where is order 12345?' };
    const first = await next(model, [vague]);
    const message =
      'The call to query_order was not run: 1 problem with its arguments. Fix it and call query_order again.\n- `order_id`: expected a string matching ^SO\\d{8}$ (Order number). Valid example: "SO20260901". You sent the number 12345.';
    const second = await next(model, [vague, first, ...toolReply(message)]);
    expect(second.tool_calls).toBeUndefined();
    expect(second.content).toBe('Could you give me the order id? It should look like "SO20260901".');
  });

  it('repeats itself once on an error that says nothing, then gives up', async () => {
    const model = new ScriptedModel({ script: { ...script, giveUp: 'I give up.' } });
    const first = await next(model, [user]);
    const second = await next(model, [user, first, ...toolReply('Tool execution failed')]);
    expect(second.tool_calls?.[0]?.function.arguments).toBe(first.tool_calls?.[0]?.function.arguments);
    const repeatedAnswer: ChatMessage = {
      role: 'tool',
      tool_call_id: second.tool_calls?.[0]?.id ?? '',
      content: 'Tool execution failed',
    };
    const third = await next(model, [user, first, ...toolReply('Tool execution failed'), second, repeatedAnswer]);
    expect(third.content).toBe('I give up.');
  });

  it('answers from the result once the call succeeds', async () => {
    const model = new ScriptedModel({ script });
    const first = await next(model, [user]);
    const answer = await next(model, [user, first, ...toolReply('{"order_id":"SO20260901","status":"shipped"}')]);
    expect(answer.content).toBe('Order SO20260901 is shipped.');
  });

  it('relays a refusal instead of retrying it', async () => {
    const model = new ScriptedModel({ script, name: 'refusal' });
    const first = await next(model, [user]);
    const answer = await next(model, [
      user,
      first,
      ...toolReply(
        'Refused (order_cancelled): Order SO20260905 was cancelled. Do not call query_order again for this; tell the user what happened.',
      ),
    ]);
    expect(answer.content).toBe("I'm sorry, that can't be done: Order SO20260905 was cancelled.");
  });
});

describe('readToolFeedback', () => {
  it('reads a pattern that ends the sentence without its full stop', () => {
    const feedback = readToolFeedback('- `code`: expected a string matching ^x\\d$. You sent the number 1.');
    expect(feedback.kind === 'invalid' && feedback.issues[0]?.pattern).toBe('^x\\d$');
  });

  it('ignores the words of a field’s description when reading what type is expected', () => {
    const feedback = readToolFeedback('- `note`：需要非空字符串（备注，可以包含数字）。你传的是数字 5。');
    expect(feedback.kind === 'invalid' && feedback.issues[0]?.expects).toBe('string');
  });
});
