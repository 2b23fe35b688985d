import { createAnthropic as createAnthropicV3 } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI as createGoogleV3 } from '@ai-sdk/google';
import { createAnthropic as createAnthropicV4 } from 'anthropic-v4';
import { createGoogleGenerativeAI as createGoogleV4 } from 'google-v4';
import { AiSdkModel, type AiSdkModelOptions } from '../ai-sdk/ai-sdk-model.js';
import type { AiSdkLanguageModel } from '../ai-sdk/language-model-spec.js';
import { type AnthropicReply, startFakeAnthropicServer } from './fake-anthropic-server.js';
import { type GeminiReply, startFakeGeminiServer } from './fake-gemini-server.js';
import type { ProviderRequest } from './start-fake-provider-server.js';

/** One answer, said once for every provider: thinking, text, tool calls. */
export interface NeutralTurn {
  readonly thinking?: string;
  readonly text?: string;
  readonly calls?: readonly { readonly name: string; readonly input: Record<string, unknown> }[];
}

/** A real provider package on a fake of its API. */
export interface ProviderUnderTest {
  /** `ARBITER_PROVIDER`'s short name. */
  readonly provider: 'anthropic' | 'google';
  readonly spec: 'v3' | 'v4';
  readonly modelId: string;
  readonly apiKey: string;
  /** The provider's base URL on the fake. */
  readonly baseUrl: string;
  readonly requests: readonly ProviderRequest[];
  /** What the fake refused (400) and why. */
  readonly refusals: readonly string[];
  languageModel(modelId?: string): AiSdkLanguageModel;
  model(options?: AiSdkModelOptions & { modelId?: string }): AiSdkModel;
  /** The conversation the provider sent in request `index`, in a provider-neutral outline. */
  outline(index: number): string[];
  close(): Promise<void>;
}

export interface ProviderCase {
  readonly label: string;
  readonly provider: 'anthropic' | 'google';
  readonly spec: 'v3' | 'v4';
  start(turns: readonly NeutralTurn[]): Promise<ProviderUnderTest>;
}

const anthropicKey = 'sk-ant-test-key-0000';
const googleKey = 'gemini-test-key-0000';

function anthropicTurns(turns: readonly NeutralTurn[]): AnthropicReply[] {
  let call = 0;
  return turns.map((turn, index) => ({
    kind: 'message',
    ...(turn.thinking === undefined
      ? {}
      : { thinking: [{ text: turn.thinking, signature: `sig-${index}-${turn.thinking.length}` }] }),
    ...(turn.text === undefined ? {} : { text: turn.text, textChunkSize: 7 }),
    ...(turn.calls === undefined
      ? {}
      : {
          toolCalls: turn.calls.map((entry) => {
            call += 1;
            return { id: `toolu_${String(call).padStart(2, '0')}`, name: entry.name, input: entry.input };
          }),
        }),
    usage: { input: 100 + index, output: 10, cacheRead: 40 },
  }));
}

function geminiTurns(turns: readonly NeutralTurn[]): GeminiReply[] {
  return turns.map((turn, index) => ({
    kind: 'content',
    ...(turn.thinking === undefined ? {} : { thought: { text: turn.thinking, signature: `gthought-${index}` } }),
    ...(turn.text === undefined ? {} : { text: turn.text, textChunkSize: 7 }),
    ...(turn.calls === undefined
      ? {}
      : {
          functionCalls: turn.calls.map((entry, position) => ({
            name: entry.name,
            args: entry.input,
            // Gemini 3 signs the first call of a turn.
            ...(position === 0 ? { signature: `gsig-${index}` } : {}),
          })),
        }),
    usage: { prompt: 100 + index, candidates: 10, cached: 40 },
  }));
}

function anthropicOutline(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content: Record<string, unknown>[] }[] }).messages ?? [];
  return messages.flatMap((message) =>
    message.content.map((block) => {
      switch (block['type']) {
        case 'text':
          return `${message.role}: ${String(block['text'])}`;
        case 'thinking':
          return `${message.role} thinking: ${String(block['thinking'])}`;
        case 'tool_use':
          return `${message.role} calls ${String(block['name'])} ${JSON.stringify(block['input'])}`;
        case 'tool_result':
          return `result: ${String(block['content'])}`;
        default:
          return `${message.role} ${String(block['type'])}`;
      }
    }),
  );
}

function geminiOutline(body: unknown): string[] {
  const contents = (body as { contents?: { role: string; parts: Record<string, unknown>[] }[] }).contents ?? [];
  const role = (name: string) => (name === 'model' ? 'assistant' : name);
  return contents.flatMap((content) =>
    content.parts.map((part) => {
      if (part['thought'] === true) return `${role(content.role)} thinking: ${String(part['text'])}`;
      if (typeof part['text'] === 'string') return `${role(content.role)}: ${part['text']}`;
      const call = part['functionCall'] as { name: string; args: unknown } | undefined;
      if (call !== undefined) return `${role(content.role)} calls ${call.name} ${JSON.stringify(call.args)}`;
      const response = part['functionResponse'] as { response: { content: unknown } } | undefined;
      if (response !== undefined) return `result: ${String(response.response.content)}`;
      return `${content.role} part`;
    }),
  );
}

/**
 * The four provider packages arbiter is tested with, each on a fake of its
 * own API: `@ai-sdk/anthropic` and `@ai-sdk/google` of AI SDK 6 (spec V3)
 * and of AI SDK 7 (spec V4).
 *
 * @example
 * describe.each(providerCases)('$label', ({ start }) => { ... });
 */
export const providerCases: readonly ProviderCase[] = (
  [
    { label: '@ai-sdk/anthropic@3 (spec v3)', provider: 'anthropic', spec: 'v3', create: createAnthropicV3 },
    { label: '@ai-sdk/anthropic@4 (spec v4)', provider: 'anthropic', spec: 'v4', create: createAnthropicV4 },
    { label: '@ai-sdk/google@3 (spec v3)', provider: 'google', spec: 'v3', create: createGoogleV3 },
    { label: '@ai-sdk/google@4 (spec v4)', provider: 'google', spec: 'v4', create: createGoogleV4 },
  ] as const
).map(({ label, provider, spec, create }) => ({
  label,
  provider,
  spec,
  start: async (turns: readonly NeutralTurn[]): Promise<ProviderUnderTest> => {
    const anthropic = provider === 'anthropic';
    const server = anthropic
      ? await startFakeAnthropicServer({ respond: anthropicTurns(turns), apiKey: anthropicKey })
      : await startFakeGeminiServer({ respond: geminiTurns(turns), apiKey: googleKey });
    const apiKey = anthropic ? anthropicKey : googleKey;
    const defaultModelId = anthropic ? 'claude-sonnet-4-5' : 'gemini-3-pro-preview';
    const factory = (create as (settings: { baseURL: string; apiKey: string }) => (id: string) => AiSdkLanguageModel)({
      baseURL: server.baseUrl,
      apiKey,
    });
    return {
      provider,
      spec,
      modelId: defaultModelId,
      apiKey,
      baseUrl: server.baseUrl,
      requests: server.requests,
      refusals: server.refusals,
      languageModel: (modelId = defaultModelId) => factory(modelId),
      model: ({ modelId = defaultModelId, ...options } = {}) =>
        new AiSdkModel({ languageModel: factory(modelId), ...options }),
      outline: (index) => (anthropic ? anthropicOutline : geminiOutline)(server.requests[index]?.body),
      close: () => server.close(),
    };
  },
}));
