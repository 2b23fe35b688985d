import type { AssistantMessage, ToolCall } from '../core/chat-message.js';
import type { TokenUsage } from '../core/run-usage.js';
import { ModelError } from '../errors/model-error.js';
import { isRecord } from '../util/is-record.js';
import type { FinishReason, ModelResponse } from './model.js';

/**
 * Collects the chunks of one streamed chat completion into a whole response.
 * Pure: it sees only parsed chunks, never the network.
 */
export interface StreamAssembler {
  /**
   * Adds one parsed `chat.completion.chunk` and returns the text fragment it
   * carried (empty string when none), so the caller can forward it as it
   * arrives. Throws a `ModelError` of kind `response` when the chunk is not
   * shaped like a chat-completion chunk.
   */
  push(chunk: unknown): string;
  /**
   * Returns the assembled response. Throws a `ModelError` of kind `response`
   * when the stream was cut short (no `finish_reason`) or a tool call never
   * got a name.
   */
  finish(): ModelResponse;
}

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Starts assembling one streamed chat completion (OpenAI wire format).
 *
 * - Text: `delta.content` (and `delta.refusal`) fragments are concatenated.
 * - Tool calls: fragments are grouped by `index`, in any interleaving;
 *   `arguments` fragments are concatenated as raw text, so a split anywhere
 *   (even inside a `\u00e9` escape) is harmless. `id` and `name` are taken
 *   from the first fragment that carries them. A fragment with a different
 *   `id` on an index already in use starts a new call (some providers send
 *   every call with index 0). A fragment without `index` uses its position.
 *   A missing `id` becomes `call_<n>`; empty arguments become `{}`.
 * - Usage: the last non-null `usage` seen; zeros when the provider sent none.
 * - Finish reason: mapped to `FinishReason`; `stop` with tool calls present
 *   is reported as `tool_calls`.
 *
 * @example
 * const assembler = createStreamAssembler();
 * for await (const chunk of stream) onTextDelta(assembler.push(chunk));
 * const { message, usage, finishReason } = assembler.finish();
 */
export function createStreamAssembler(): StreamAssembler {
  let content = '';
  let sawText = false;
  let finishReason: string | undefined;
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  const calls: PartialToolCall[] = [];
  const callByIndex = new Map<number, PartialToolCall>();

  function pushToolCallFragment(fragment: unknown, position: number): void {
    if (!isRecord(fragment)) throw malformed(`a tool_calls entry is ${describe(fragment)}, not an object`);
    const index = typeof fragment['index'] === 'number' ? fragment['index'] : position;
    const id = typeof fragment['id'] === 'string' && fragment['id'] !== '' ? fragment['id'] : undefined;
    const fn = isRecord(fragment['function']) ? fragment['function'] : {};

    let call = callByIndex.get(index);
    if (call === undefined || (id !== undefined && call.id !== '' && call.id !== id)) {
      call = { id: '', name: '', arguments: '' };
      calls.push(call);
      callByIndex.set(index, call);
    }
    if (id !== undefined && call.id === '') call.id = id;
    if (typeof fn['name'] === 'string' && fn['name'] !== '' && call.name === '') call.name = fn['name'];
    const argumentsFragment = fn['arguments'];
    if (typeof argumentsFragment === 'string') {
      call.arguments += argumentsFragment;
    } else if (isRecord(argumentsFragment)) {
      // A few OpenAI-compatible servers send the arguments as an object.
      call.arguments += JSON.stringify(argumentsFragment);
    } else if (argumentsFragment !== undefined && argumentsFragment !== null) {
      throw malformed(`tool call arguments are ${describe(argumentsFragment)}, not a string`);
    }
  }

  function pushChoice(choice: unknown): string {
    if (!isRecord(choice)) throw malformed(`a choice is ${describe(choice)}, not an object`);
    if (typeof choice['index'] === 'number' && choice['index'] !== 0) return '';
    if (typeof choice['finish_reason'] === 'string') finishReason = choice['finish_reason'];

    const delta = choice['delta'];
    if (delta === undefined || delta === null) return '';
    if (!isRecord(delta)) throw malformed(`a delta is ${describe(delta)}, not an object`);

    const toolCalls = delta['tool_calls'];
    if (Array.isArray(toolCalls)) toolCalls.forEach(pushToolCallFragment);
    else if (toolCalls !== undefined && toolCalls !== null) throw malformed('delta.tool_calls is not an array');

    let text = '';
    for (const field of ['content', 'refusal'] as const) {
      const value = delta[field];
      if (typeof value === 'string') text += value;
      else if (value !== undefined && value !== null) throw malformed(`delta.${field} is ${describe(value)}`);
    }
    if (text !== '') {
      content += text;
      sawText = true;
    }
    return text;
  }

  return {
    push(chunk) {
      if (!isRecord(chunk)) throw malformed(`a chunk is ${describe(chunk)}, not an object`);
      if (isRecord(chunk['usage'])) usage = readUsage(chunk['usage']);

      const choices = chunk['choices'];
      if (choices === undefined || choices === null) return '';
      if (!Array.isArray(choices)) throw malformed('chunk.choices is not an array');
      let text = '';
      for (const choice of choices) text += pushChoice(choice);
      return text;
    },

    finish() {
      if (finishReason === undefined) throw malformed('the stream ended without a finish_reason');
      const toolCalls = calls.map((call, position): ToolCall => {
        if (call.name === '') throw malformed(`tool call ${position + 1} has no function name`);
        return {
          id: call.id === '' ? `call_${position + 1}` : call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
        };
      });
      const message: AssistantMessage =
        toolCalls.length === 0
          ? { role: 'assistant', content: sawText ? content : null }
          : { role: 'assistant', content: sawText ? content : null, tool_calls: toolCalls };
      const mapped = mapFinishReason(finishReason);
      return { message, usage, finishReason: mapped === 'stop' && toolCalls.length > 0 ? 'tool_calls' : mapped };
    },
  };
}

/**
 * Maps an OpenAI `finish_reason` to arbiter's `FinishReason`: the legacy
 * `function_call` counts as `tool_calls`, anything unknown becomes `other`.
 *
 * @example
 * mapFinishReason('length'); // 'length'
 */
export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
    case 'length':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

function readUsage(raw: Record<string, unknown>): TokenUsage {
  const inputTokens = toCount(raw['prompt_tokens']);
  const outputTokens = toCount(raw['completion_tokens']);
  const details = raw['prompt_tokens_details'];
  const cached = isRecord(details) ? details['cached_tokens'] : undefined;
  return typeof cached === 'number'
    ? { inputTokens, outputTokens, cachedInputTokens: toCount(cached) }
    : { inputTokens, outputTokens };
}

function toCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function malformed(detail: string): ModelError {
  return new ModelError({ kind: 'response', message: `malformed chat-completion stream: ${detail}` });
}
