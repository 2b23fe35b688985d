/**
 * The part of the AI SDK's language-model specification arbiter uses,
 * written out structurally so that `LanguageModelV3` (`@ai-sdk/provider@3`,
 * AI SDK 6 providers) and `LanguageModelV4` (`@ai-sdk/provider@4`, AI SDK 7
 * providers) both fit without arbiter depending on either package: what
 * arbiter sends is a subset both versions accept, and what it reads back is
 * checked part by part at run time (a provider's stream is its data, not
 * arbiter's types).
 *
 * @module
 */

/** A JSON value, as the spec types provider options. */
export type SpecJsonValue = null | string | number | boolean | SpecJsonObject | SpecJsonValue[];

export interface SpecJsonObject {
  [key: string]: SpecJsonValue | undefined;
}

/** A provider's own options on a prompt part, by provider name (`{ anthropic: { signature } }`). */
export type SpecProviderOptions = Record<string, SpecJsonObject>;

export interface SpecTextPart {
  type: 'text';
  text: string;
  providerOptions?: SpecProviderOptions;
}

export interface SpecReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: SpecProviderOptions;
}

export interface SpecToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: SpecProviderOptions;
}

export interface SpecToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: 'text'; value: string };
  providerOptions?: SpecProviderOptions;
}

/** One message of the prompt, as both spec versions define it (the parts arbiter sends). */
export type SpecMessage =
  | { role: 'system'; content: string; providerOptions?: SpecProviderOptions }
  | { role: 'user'; content: SpecTextPart[] }
  | { role: 'assistant'; content: Array<SpecTextPart | SpecReasoningPart | SpecToolCallPart> }
  | { role: 'tool'; content: SpecToolResultPart[] };

/** A function tool: a JSON Schema for its input, `strict` where the provider can enforce it. */
export interface SpecFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  inputSchema: SpecJsonObject;
  strict?: boolean;
}

/** The call options arbiter sets. */
export interface SpecCallOptions {
  prompt: SpecMessage[];
  tools?: SpecFunctionTool[];
  toolChoice?: { type: 'auto' };
  maxOutputTokens?: number;
  abortSignal?: AbortSignal;
  providerOptions?: SpecProviderOptions;
  headers?: Record<string, string | undefined>;
}

/** One stream part, read field by field: its `type` names which (`text-delta`, `tool-call`, `finish`, …). */
export interface SpecStreamPart {
  readonly type: string;
}

/**
 * A language model of an AI SDK provider (`anthropic('claude-sonnet-4-5')`,
 * `google('gemini-2.5-flash')`): a `LanguageModelV3` or a `LanguageModelV4`.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  doStream(options: SpecCallOptions): PromiseLike<{ stream: ReadableStream<SpecStreamPart> }>;
  /**
   * The whole answer at once (`content`, `usage`, `finishReason`): called
   * when the model does not stream, as the AI SDK's `MockLanguageModelV3` /
   * `V4` built with `doGenerate` only.
   */
  doGenerate?(options: SpecCallOptions): PromiseLike<unknown>;
}
