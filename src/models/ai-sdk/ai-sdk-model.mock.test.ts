import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream as toStreamV3 } from 'ai6/test';
import { MockLanguageModelV4, convertArrayToReadableStream as toStreamV4 } from 'ai7/test';
import type { LanguageModelV4, LanguageModelV4StreamPart } from 'provider-v4';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { ModelError } from '../../errors/model-error.js';
import { aiSdkModel } from './ai-sdk-model.js';
import type { AiSdkLanguageModel } from './language-model-spec.js';

// Both spec versions fit the adapter's parameter, checked by the compiler.
const fitsV3: (model: LanguageModelV3) => AiSdkLanguageModel = (model) => model;
const fitsV4: (model: LanguageModelV4) => AiSdkLanguageModel = (model) => model;

type Part = LanguageModelV3StreamPart & LanguageModelV4StreamPart;
const finish = (unified: 'stop' | 'tool-calls', input = 12): Part =>
  ({
    type: 'finish',
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 3, text: 3, reasoning: undefined },
    },
  }) as Part;

/** The SDK's own mock of each spec version, streaming `parts`, recording the calls it gets. */
const mocks = [
  {
    label: 'ai@6 MockLanguageModelV3',
    create: (parts: readonly unknown[]) => {
      const mock = new MockLanguageModelV3({
        doStream: async () => ({ stream: toStreamV3(parts as LanguageModelV3StreamPart[]) }),
      });
      return { model: fitsV3(mock), calls: () => mock.doStreamCalls };
    },
  },
  {
    label: 'ai@7 MockLanguageModelV4',
    create: (parts: readonly unknown[]) => {
      const mock = new MockLanguageModelV4({
        doStream: async () => ({ stream: toStreamV4(parts as LanguageModelV4StreamPart[]) }),
      });
      return { model: fitsV4(mock), calls: () => mock.doStreamCalls };
    },
  },
];

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are the shop assistant.' },
  { role: 'user', content: 'Refund SO20260901.' },
  {
    role: 'assistant',
    content: null,
    thinking: [{ text: 'Check first.', provider_metadata: { anthropic: { signature: 'sig-A' } } }],
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":12345}' } },
      { id: 'call_2', type: 'function', function: { name: 'query_order', arguments: 'not json' } },
    ],
  },
  {
    role: 'tool',
    tool_call_id: 'call_1',
    content: 'The call to query_order was not run: `order_id` must be a string.',
  },
  { role: 'tool', tool_call_id: 'call_2', content: 'The arguments were not JSON.' },
  { role: 'system', content: 'Summary of earlier turns: the customer asked about SO20260901.' },
  { role: 'assistant', content: '' },
];

describe.each(mocks)('aiSdkModel over $label', ({ create }) => {
  it('sends the conversation as the spec’s prompt: thinking first, calls as objects, results grouped and named', async () => {
    const { model, calls } = create([{ type: 'text-delta', id: 't', delta: 'ok' }, finish('stop')]);
    await aiSdkModel(model).generate({ messages: conversation, tools: [] });
    expect(calls()[0]?.prompt).toEqual([
      { role: 'system', content: 'You are the shop assistant.' },
      { role: 'user', content: [{ type: 'text', text: 'Refund SO20260901.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Check first.', providerOptions: { anthropic: { signature: 'sig-A' } } },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'query_order', input: { order_id: 12345 } },
          // Not JSON: an empty object goes, and the result that follows says what was wrong.
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'query_order', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'query_order',
            output: { type: 'text', value: 'The call to query_order was not run: `order_id` must be a string.' },
          },
          {
            type: 'tool-result',
            toolCallId: 'call_2',
            toolName: 'query_order',
            output: { type: 'text', value: 'The arguments were not JSON.' },
          },
        ],
      },
      // A system message past the start goes as a user message; the empty assistant message is left out.
      {
        role: 'user',
        content: [{ type: 'text', text: 'Summary of earlier turns: the customer asked about SO20260901.' }],
      },
    ]);
    expect(calls()[0]?.toolChoice).toBeUndefined();
  });

  it('keeps every piece of provider metadata a block carried, and ignores calls the provider ran itself', async () => {
    const { model } = create([
      { type: 'reasoning-start', id: 'r1', providerMetadata: { anthropic: { redactedData: 'opaque' } } },
      { type: 'reasoning-end', id: 'r1' },
      { type: 'reasoning-start', id: 'r2' },
      { type: 'reasoning-delta', id: 'r2', delta: 'Think.' },
      { type: 'reasoning-delta', id: 'r2', delta: '', providerMetadata: { anthropic: { signature: 'sig-B' } } },
      { type: 'reasoning-end', id: 'r2' },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Checking.', providerMetadata: { google: { thoughtSignature: 'ts-1' } } },
      { type: 'text-end', id: 't1' },
      { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{}', providerExecuted: true },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'query_order', input: '{"order_id":"SO20260901"}' },
      finish('tool-calls'),
    ]);
    const { message, finishReason } = await aiSdkModel(model).generate({
      messages: conversation.slice(0, 2),
      tools: [],
    });
    expect(finishReason).toBe('tool_calls');
    expect(message).toEqual({
      role: 'assistant',
      content: 'Checking.',
      provider_metadata: { google: { thoughtSignature: 'ts-1' } },
      thinking: [
        { text: '', provider_metadata: { anthropic: { redactedData: 'opaque' } } },
        { text: 'Think.', provider_metadata: { anthropic: { signature: 'sig-B' } } },
      ],
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
      ],
    });
  });

  it('sends tools in the order given, as the same objects on every call, with toolChoice auto', async () => {
    const { model, calls } = create([finish('stop')]);
    const tools = ['query_order', 'apply_refund'].map((name) => ({
      type: 'function' as const,
      function: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
    }));
    const adapter = aiSdkModel(model);
    await adapter.generate({ messages: conversation.slice(0, 2), tools, maxOutputTokens: 512.7 });
    await adapter.generate({ messages: conversation.slice(0, 2), tools });
    const [first, second] = calls();
    expect(first?.tools?.map((tool) => tool.name)).toEqual(['query_order', 'apply_refund']);
    expect(first?.tools?.[0]).toBe(second?.tools?.[0]);
    expect(first?.toolChoice).toEqual({ type: 'auto' });
    expect(first?.maxOutputTokens).toBe(512);
  });

  it('fails with a ModelError on an error part, and on a stream that ends without finishing', async () => {
    const failing = create([
      { type: 'text-delta', id: 't', delta: 'Hal' },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    const overloaded = await aiSdkModel(failing.model)
      .generate({ messages: conversation.slice(0, 2), tools: [] })
      .catch((error: unknown) => error);
    expect(ModelError.isInstance(overloaded) && overloaded.kind).toBe('server');

    const cut = create([{ type: 'text-delta', id: 't', delta: 'Hal' }]);
    const unfinished = await aiSdkModel(cut.model)
      .generate({ messages: conversation.slice(0, 2), tools: [] })
      .catch((error: unknown) => error);
    expect(ModelError.isInstance(unfinished) && unfinished.kind).toBe('network');
  });

  it('keeps hostile metadata keys (__proto__, constructor) as plain data, polluting nothing', async () => {
    const metadata = JSON.parse(
      '{"__proto__":{"polluted":true},"google":{"thoughtSignature":"x","__proto__":{"polluted":true}}}',
    );
    const { model, calls } = create([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'query_order', input: '{}', providerMetadata: metadata },
      finish('tool-calls'),
    ]);
    const adapter = aiSdkModel(model);
    const { message } = await adapter.generate({ messages: conversation.slice(0, 2), tools: [] });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const stored = JSON.parse(JSON.stringify(message));
    await adapter.generate({ messages: [...conversation.slice(0, 2), stored], tools: [] }).catch(() => undefined);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const sent = calls()[1]?.prompt[2];
    expect(JSON.stringify(sent)).toContain('"thoughtSignature":"x"');
  });
});

/** The SDK's own mock of each spec version built as docs write it: `doGenerate` only. */
const generateOnlyMocks = [
  {
    label: 'ai@6 MockLanguageModelV3',
    create: (result: unknown) => {
      const mock = new MockLanguageModelV3({ doGenerate: async () => result as never });
      return { model: fitsV3(mock), mock };
    },
  },
  {
    label: 'ai@7 MockLanguageModelV4',
    create: (result: unknown) => {
      const mock = new MockLanguageModelV4({ doGenerate: async () => result as never });
      return { model: fitsV4(mock), mock };
    },
  },
];

describe.each(generateOnlyMocks)('aiSdkModel over $label with doGenerate only', ({ create }) => {
  const { usage, finishReason } = finish('tool-calls') as unknown as Record<string, unknown>;
  const result = {
    content: [
      { type: 'reasoning', text: 'Check first.', providerMetadata: { anthropic: { signature: 'sig-A' } } },
      { type: 'text', text: 'Checking the order.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'query_order', input: '{"order_id":"SO20260901"}' },
    ],
    finishReason,
    usage,
    warnings: [],
  };

  it('answers from doGenerate, not "the connection broke … Not implemented", and asks doStream only once', async () => {
    const { model, mock } = create(result);
    const adapter = aiSdkModel(model);
    const deltas: string[] = [];
    const answer = await adapter.generate({
      messages: conversation.slice(0, 2),
      tools: [],
      onTextDelta: (text) => deltas.push(text),
    });
    expect(answer).toEqual({
      message: {
        role: 'assistant',
        content: 'Checking the order.',
        thinking: [{ text: 'Check first.', provider_metadata: { anthropic: { signature: 'sig-A' } } }],
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
        ],
      },
      usage: { inputTokens: 12, outputTokens: 3 },
      finishReason: 'tool_calls',
    });
    expect(deltas).toEqual(['Checking the order.']);
    await adapter.generate({ messages: conversation.slice(0, 2), tools: [] });
    expect(mock.doStreamCalls).toHaveLength(1);
    expect(mock.doGenerateCalls).toHaveLength(2);
  });

  it('still fails with a ModelError when doStream fails for another reason', async () => {
    const { model } = create(result);
    const broken = Object.assign(Object.create(model) as AiSdkLanguageModel, {
      doStream: async () => {
        throw new Error('socket hang up');
      },
    });
    const error = await aiSdkModel(broken)
      .generate({ messages: conversation.slice(0, 2), tools: [] })
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.kind).toBe('network');
  });
});
