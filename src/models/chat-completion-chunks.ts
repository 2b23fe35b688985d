/** One tool call a fake answer carries. `arguments` is raw text, sent as is. */
export interface FakeToolCall {
  /** Defaults to `call_<n>`, n counting from 1. */
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

/** Token usage a fake answer reports, in the provider's own terms. */
export interface FakeUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens?: number;
}

/** What the model "says" and how it is cut into chunks. */
export interface FakeAnswer {
  /** Text content; omitted or empty means no text. */
  readonly text?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** Characters (code points) per text fragment. Default 4. */
  readonly textChunkSize?: number;
  /** UTF-16 characters per `arguments` fragment, cutting escapes too. Default: one fragment. */
  readonly argumentChunkSize?: number;
  /** Send the tool calls' fragments round-robin by index instead of one call after another. */
  readonly interleave?: boolean;
  /** Default `tool_calls` when there are tool calls, else `stop`; `null` sends no finish chunk. */
  readonly finishReason?: string | null;
  /** Default `{ promptTokens: 10, completionTokens: 5 }`; `null` sends no usage. */
  readonly usage?: FakeUsage | null;
}

const defaultUsage: FakeUsage = { promptTokens: 10, completionTokens: 5 };

/** Identity fields every chunk of one answer shares. */
export interface ChunkIdentity {
  readonly id: string;
  readonly model: string;
  readonly created?: number;
}

/**
 * Cuts an answer into `chat.completion.chunk` objects shaped like OpenAI's
 * (role chunk, text fragments, tool-call fragments, finish chunk, usage chunk
 * with `choices: []`), ready to be sent as SSE `data:` lines or fed to a
 * stream assembler.
 *
 * @example
 * const chunks = toStreamChunks({ text: 'Hello there' }, { id: 'chatcmpl-1', model: 'gpt-4o-mini' });
 */
export function toStreamChunks(answer: FakeAnswer, identity: ChunkIdentity): unknown[] {
  const { text = '', toolCalls = [], textChunkSize = 4, argumentChunkSize, interleave = false } = answer;
  const envelope = (choices: unknown[], usage: unknown = null) => ({
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created ?? 0,
    model: identity.model,
    system_fingerprint: 'fp_fake',
    choices,
    usage,
  });
  const choice = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });

  const chunks: unknown[] = [envelope([choice({ role: 'assistant', content: '', refusal: null })])];
  for (const piece of splitCodePoints(text, textChunkSize)) chunks.push(envelope([choice({ content: piece })]));

  const perCall = toolCalls.map((call, index) => {
    const head = {
      index,
      id: call.id ?? `call_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    const pieces = splitUnits(call.arguments, argumentChunkSize ?? Math.max(call.arguments.length, 1));
    return [head, ...pieces.map((piece) => ({ index, function: { arguments: piece } }))];
  });
  const fragments = interleave ? roundRobin(perCall) : perCall.flat();
  for (const fragment of fragments) chunks.push(envelope([choice({ tool_calls: [fragment] })]));

  const finishReason = resolveFinishReason(answer);
  if (finishReason !== null) chunks.push(envelope([choice({}, finishReason)]));
  const usage = answer.usage === undefined ? defaultUsage : answer.usage;
  if (usage !== null) chunks.push(envelope([], toWireUsage(usage)));
  return chunks;
}

/**
 * The same answer as one non-streamed `chat.completion` object.
 *
 * @example
 * const body = toChatCompletion({ text: 'Hello' }, { id: 'chatcmpl-1', model: 'gpt-4o-mini' });
 */
export function toChatCompletion(answer: FakeAnswer, identity: ChunkIdentity): Record<string, unknown> {
  const { text = '', toolCalls = [] } = answer;
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' ? null : text, refusal: null };
  if (toolCalls.length > 0) {
    message['tool_calls'] = toolCalls.map((call, index) => ({
      id: call.id ?? `call_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const usage = answer.usage === undefined ? defaultUsage : answer.usage;
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created ?? 0,
    model: identity.model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: resolveFinishReason(answer) }],
    ...(usage === null ? {} : { usage: toWireUsage(usage) }),
  };
}

function resolveFinishReason(answer: FakeAnswer): string | null {
  if (answer.finishReason !== undefined) return answer.finishReason;
  return (answer.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop';
}

function toWireUsage({ promptTokens, completionTokens, cachedTokens = 0 }: FakeUsage) {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

function splitCodePoints(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) pieces.push(points.slice(start, start + size).join(''));
  return pieces;
}

function splitUnits(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

function roundRobin<T>(lists: readonly (readonly T[])[]): T[] {
  const result: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let position = 0; position < longest; position += 1) {
    for (const list of lists) {
      const item = list[position];
      if (item !== undefined) result.push(item);
    }
  }
  return result;
}
