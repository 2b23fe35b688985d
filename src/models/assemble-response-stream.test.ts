import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors/model-error.js';
import { createResponseAssembler } from './assemble-response-stream.js';
import { toResponseEvents } from './test-support/response-events.js';

const identity = { id: 'resp_p', model: 'gpt-5-mini' };

/** Any order of the events that keeps each item's own events in order (what a provider interleaving items may send). */
function interleave<T>(lists: readonly (readonly T[])[], picks: readonly number[]): T[] {
  const queues = lists.map((list) => [...list]);
  const result: T[] = [];
  let pick = 0;
  while (queues.some((queue) => queue.length > 0)) {
    const open = queues.filter((queue) => queue.length > 0);
    const queue = open[(picks[pick] ?? 0) % open.length];
    pick += 1;
    const next = queue?.shift();
    if (next !== undefined) result.push(next);
  }
  return result;
}

function withoutWholeArguments(event: Record<string, unknown>): Record<string, unknown> {
  const strip = (item: unknown) => {
    if (typeof item !== 'object' || item === null || (item as { type?: unknown }).type !== 'function_call') return item;
    const { arguments: _whole, ...rest } = item as Record<string, unknown>;
    return rest;
  };
  if (event['type'] === 'response.output_item.done') return { ...event, item: strip(event['item']) };
  const response = event['response'] as { output?: unknown[] } | undefined;
  if (response?.output === undefined) return event;
  return { ...event, response: { ...response, output: response.output.map(strip) } };
}

describe('createResponseAssembler', () => {
  it('forwards exactly the text, and assembles every call whatever the chunking and interleaving of argument deltas', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.json({ maxDepth: 2 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.nat(), { maxLength: 200 }),
        (text, argumentsList, textChunkSize, argumentChunkSize, picks) => {
          const toolCalls = argumentsList.map((json, index) => ({
            id: `call_${index}`,
            name: `tool_${index}`,
            arguments: json,
          }));
          // Without the whole-arguments repeats (`….done`, done items, the final output), only the deltas tell.
          const events = toResponseEvents({ text, toolCalls, textChunkSize, argumentChunkSize }, identity)
            .filter((event) => event['type'] !== 'response.function_call_arguments.done')
            .map(withoutWholeArguments);
          const deltas = events.filter((event) => event['type'] === 'response.function_call_arguments.delta');
          const byItem = toolCalls.map((_, index) =>
            deltas.filter((event) => event['item_id'] === `fc_fake_${index + (text === '' ? 0 : 1)}`),
          );
          const rest = events.filter((event) => event['type'] !== 'response.function_call_arguments.delta');
          const lastAdded = rest.findLastIndex((event) => event['type'] === 'response.output_item.added');
          const stream = [...rest.slice(0, lastAdded + 1), ...interleave(byItem, picks), ...rest.slice(lastAdded + 1)];

          const assembler = createResponseAssembler();
          let forwarded = '';
          for (const event of stream) forwarded += assembler.push(event);
          const { message, finishReason } = assembler.finish();

          expect(forwarded).toBe(text);
          expect(message.content).toBe(text === '' ? null : text);
          expect(message.tool_calls?.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual(
            toolCalls.map((call) => [call.id, call.name, call.arguments.trim() === '' ? '{}' : call.arguments]),
          );
          expect(finishReason).toBe('tool_calls');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps the argument deltas when no done event repeats them', () => {
    const assembler = createResponseAssembler();
    assembler.push({
      type: 'response.output_item.added',
      output_index: 0,
      item: { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'query_order', arguments: '' },
    });
    assembler.push({
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 0,
      delta: '{"order_id":',
    });
    assembler.push({
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 0,
      delta: '"SO20260901"}',
    });
    assembler.push({ type: 'response.completed', response: { id: 'r', status: 'completed', output: [], usage: null } });
    expect(assembler.finish().message.tool_calls?.[0]?.function.arguments).toBe('{"order_id":"SO20260901"}');
  });

  it('says a stream that stopped before its terminal event is malformed', () => {
    const assembler = createResponseAssembler();
    assembler.push({
      type: 'response.output_text.delta',
      item_id: 'm',
      output_index: 0,
      content_index: 0,
      delta: 'Hal',
    });
    expect(() => assembler.finish()).toThrow(ModelError);
    expect(() => assembler.finish()).toThrow('the stream ended before response.completed');
  });
});
