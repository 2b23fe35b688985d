import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors/model-error.js';
import { createStreamAssembler, mapFinishReason } from './assemble-stream.js';
import { type FakeAnswer, toStreamChunks } from './chat-completion-chunks.js';

const identity = { id: 'chatcmpl-test', model: 'gpt-4o-mini' };

function assemble(chunks: readonly unknown[]) {
  const assembler = createStreamAssembler();
  const deltas = chunks.map((chunk) => assembler.push(chunk)).filter((text) => text !== '');
  return { deltas, response: assembler.finish() };
}

function assembleAnswer(answer: FakeAnswer) {
  return assemble(toStreamChunks(answer, identity));
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

// Recorded from api.openai.com (ids shortened): one call, arguments in small fragments.
const recordedToolCallStream = [
  {
    id: 'chatcmpl-B1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_1',
    choices: [
      {
        index: 0,
        delta: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { index: 0, id: 'call_Qx7', type: 'function', function: { name: 'query_order', arguments: '' } },
          ],
          refusal: null,
        },
        logprobs: null,
        finish_reason: null,
      },
    ],
    usage: null,
  },
  ...['{"', 'order', '_id', '":"', 'SO', '202', '609', '01', '"}'].map((piece) => ({
    id: 'chatcmpl-B1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_1',
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
    usage: null,
  })),
  {
    id: 'chatcmpl-B1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
    usage: null,
  },
  {
    id: 'chatcmpl-B1',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_1',
    choices: [],
    usage: {
      prompt_tokens: 84,
      completion_tokens: 19,
      total_tokens: 103,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
  },
];

describe('createStreamAssembler', () => {
  it('returns each text fragment in order and joins them into the content when text streams', () => {
    const { deltas, response } = assembleAnswer({ text: 'Your order ships today.', textChunkSize: 5 });

    expect(deltas).toEqual(['Your ', 'order', ' ship', 's tod', 'ay.']);
    expect(response).toEqual({
      message: { role: 'assistant', content: 'Your order ships today.' },
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 },
      finishReason: 'stop',
    });
    expect(response.message).not.toHaveProperty('tool_calls');
  });

  it('assembles a recorded single tool call when its arguments arrive in fragments', () => {
    const { deltas, response } = assemble(recordedToolCallStream);

    expect(deltas).toEqual([]);
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Qx7',
            type: 'function',
            function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
          },
        ],
      },
      usage: { inputTokens: 84, outputTokens: 19, cachedInputTokens: 0 },
      finishReason: 'tool_calls',
    });
  });

  it('keeps three calls apart when their fragments interleave by index and split inside \\u escapes', () => {
    const toolCalls = [
      { id: 'call_a', name: 'find_cafe', arguments: '{"name":"Caf\\u00e9 de Flore","city":"Paris"}' },
      { id: 'call_b', name: 'query_order', arguments: '{"order_id":"SO20260901","note":"d\\u00e9j\\u00e0 vu"}' },
      { id: 'call_c', name: 'list_refunds', arguments: '{}' },
    ];
    const chunks = toStreamChunks({ toolCalls, argumentChunkSize: 3, interleave: true }, identity);
    const fragmentIndexes = chunks.flatMap(
      (chunk) => JSON.stringify(chunk).match(/"index":([0-2]),"function"/)?.[1] ?? [],
    );
    expect(fragmentIndexes.slice(0, 6)).toEqual(['0', '1', '2', '0', '1', '0']);
    expect(hasBoundaryInsideEscape(toolCalls[0]?.arguments ?? '', 3)).toBe(true);

    const { response } = assemble(chunks);

    expect(response.message.tool_calls).toEqual(
      toolCalls.map(({ id, name, arguments: text }) => ({ id, type: 'function', function: { name, arguments: text } })),
    );
    expect(JSON.parse(response.message.tool_calls?.[0]?.function.arguments ?? '')).toEqual({
      name: 'Café de Flore',
      city: 'Paris',
    });
    expect(response.finishReason).toBe('tool_calls');
  });

  it('reassembles any arguments text exactly when it is split at arbitrary points and interleaved', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.json(), fc.string({ unit: 'binary' })), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (argumentTexts, argumentChunkSize, interleave) => {
          const toolCalls = argumentTexts.map((text, index) => ({ name: `tool_${index}`, arguments: `{${text}` }));
          const { response } = assembleAnswer({ toolCalls, argumentChunkSize, interleave });
          expect(response.message.tool_calls?.map((call) => call.function.arguments)).toEqual(
            toolCalls.map((call) => call.arguments),
          );
        },
      ),
    );
  });

  it('reads prompt, completion and cached tokens when the final chunk carries usage', () => {
    const { response } = assembleAnswer({
      text: 'ok',
      usage: { promptTokens: 1200, completionTokens: 33, cachedTokens: 1024 },
    });

    expect(response.usage).toEqual({ inputTokens: 1200, outputTokens: 33, cachedInputTokens: 1024 });
  });

  it('reports zero usage without cachedInputTokens when the provider sends no usage', () => {
    const { response } = assembleAnswer({ text: 'ok', usage: null });

    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it.each([
    ['stop', 'stop'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['length', 'length'],
    ['content_filter', 'content_filter'],
    ['eos', 'other'],
  ] as const)('maps finish_reason %s to %s', (wire, expected) => {
    expect(mapFinishReason(wire)).toBe(expected);
    expect(assembleAnswer({ text: 'x', finishReason: wire }).response.finishReason).toBe(expected);
  });

  it('reports tool_calls when a provider says stop but sent tool calls', () => {
    const { response } = assembleAnswer({
      toolCalls: [{ name: 'list_refunds', arguments: '{}' }],
      finishReason: 'stop',
    });

    expect(response.finishReason).toBe('tool_calls');
  });

  it('keeps text and tool calls together when the model sends both', () => {
    const { deltas, response } = assembleAnswer({
      text: 'Checking.',
      toolCalls: [{ id: 'call_1', name: 'query_order', arguments: '{"order_id":"SO20260901"}' }],
    });

    expect(deltas.join('')).toBe('Checking.');
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
      ],
    });
  });

  it('starts a new call when a fragment on a used index carries a different id', () => {
    const chunk = (toolCall: unknown, finishReason: string | null = null) => ({
      choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: finishReason }],
    });
    const { response } = assemble([
      chunk({ index: 0, id: 'call_x', function: { name: 'first', arguments: '{"a":1}' } }),
      chunk({ index: 0, id: 'call_y', function: { name: 'second', arguments: '{"b":2}' } }, 'tool_calls'),
    ]);

    expect(response.message.tool_calls?.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
      ['call_x', 'first', '{"a":1}'],
      ['call_y', 'second', '{"b":2}'],
    ]);
  });

  it('fills in an id, an index and empty arguments when a lax provider leaves them out', () => {
    const { response } = assemble([
      { choices: [{ delta: { tool_calls: [{ function: { name: 'list_refunds' } }] } }] },
      { choices: [{ delta: {}, finish_reason: 'tool_calls' }] },
    ]);

    expect(response.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'list_refunds', arguments: '{}' } },
    ]);
  });

  it('treats a refusal as text when the model refuses', () => {
    const { deltas, response } = assemble([
      { choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: "I can't help" } }] },
      { choices: [{ index: 0, delta: { refusal: ' with that.' }, finish_reason: 'stop' }] },
    ]);

    expect(deltas).toEqual(["I can't help", ' with that.']);
    expect(response.message.content).toBe("I can't help with that.");
  });

  it('rejects with kind response when the stream ends without a finish_reason', () => {
    const error = catchError(() => assembleAnswer({ text: 'cut sho', finishReason: null, usage: null }));

    expect(ModelError.isInstance(error) && error.kind).toBe('response');
    expect((error as Error).message).toMatchInlineSnapshot(
      `"malformed chat-completion stream: the stream ended without a finish_reason"`,
    );
  });

  it.each([
    ['a chunk is not an object', 'data', 'a chunk is a string, not an object'],
    ['choices is not an array', { choices: {} }, 'chunk.choices is not an array'],
    ['content is a number', { choices: [{ delta: { content: 3 } }] }, 'delta.content is a number'],
    ['tool_calls is an object', { choices: [{ delta: { tool_calls: {} } }] }, 'delta.tool_calls is not an array'],
  ])('rejects with kind response when %s', (_case, chunk, detail) => {
    const error = catchError(() => createStreamAssembler().push(chunk));

    expect(ModelError.isInstance(error) && error.kind).toBe('response');
    expect((error as Error).message).toBe(`malformed chat-completion stream: ${detail}`);
  });

  it('rejects with kind response when a tool call never gets a name', () => {
    const assembler = createStreamAssembler();
    assembler.push({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { arguments: '{}' } }] } }],
    });
    assembler.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });

    const error = catchError(() => assembler.finish());

    expect((error as Error).message).toBe('malformed chat-completion stream: tool call 1 has no function name');
  });
});

function hasBoundaryInsideEscape(text: string, chunkSize: number): boolean {
  return [...text.matchAll(/\\u[0-9a-f]{4}/g)].some(({ index }) => {
    const start = index ?? 0;
    for (let boundary = start + 1; boundary < start + 6; boundary += 1) if (boundary % chunkSize === 0) return true;
    return false;
  });
}
