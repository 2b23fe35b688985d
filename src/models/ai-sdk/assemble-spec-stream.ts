import type { AssistantMessage, ProviderMetadata, ThinkingBlock, ToolCall } from '../../core/chat-message.js';
import type { TokenUsage } from '../../core/run-usage.js';
import { isRecord } from '../../util/is-record.js';
import type { FinishReason } from '../model.js';
import type { SpecStreamPart } from './language-model-spec.js';

/** What one streamed part changed: text for `onTextDelta`, or a failure the provider reported in the stream. */
export type SpecPartEffect =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'none' };

/** The answer once the stream finished. */
export interface AssembledSpecAnswer {
  readonly message: AssistantMessage;
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
  /** False when the stream ended without its `finish` part (a connection cut short). */
  readonly finished: boolean;
}

export interface SpecStreamAssembler {
  push(part: SpecStreamPart): SpecPartEffect;
  finish(): AssembledSpecAnswer;
}

interface Block {
  text: string;
  metadata: Record<string, Record<string, unknown>>;
}

/**
 * Builds an assistant message from an AI SDK stream (spec V3 or V4):
 * `text-delta`s make the content (and go to `onTextDelta`), `reasoning-*`
 * parts make thinking blocks in order, each keeping every piece of
 * provider metadata its parts carried (Anthropic sends a block's signature
 * in its last delta, Gemini a thought signature on a part), whole
 * `tool-call` parts make tool calls in order (parallel calls included) with
 * their metadata, and `finish` gives usage and the finish reason. Calls the
 * provider executed itself are not arbiter's and are left out. Parts of
 * other types are ignored; a field of an unexpected shape is read as absent.
 *
 * @example
 * const assembler = createSpecStreamAssembler();
 * for await (const part of stream) assembler.push(part);
 * const { message, usage, finishReason } = assembler.finish();
 */
export function createSpecStreamAssembler(): SpecStreamAssembler {
  const textBlocks = new Map<string, Block>();
  const textOrder: Block[] = [];
  const thinking = new Map<string, Block>();
  const thinkingOrder: Block[] = [];
  const toolCalls: ToolCall[] = [];
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let finishReason: FinishReason = 'other';
  let finished = false;

  const block = (blocks: Map<string, Block>, order: Block[], id: string): Block => {
    let found = blocks.get(id);
    if (found === undefined) {
      found = { text: '', metadata: {} };
      blocks.set(id, found);
      order.push(found);
    }
    return found;
  };

  return {
    push(part) {
      const fields = part as unknown as Record<string, unknown>;
      const id = typeof fields['id'] === 'string' ? fields['id'] : '';
      const delta = typeof fields['delta'] === 'string' ? fields['delta'] : '';
      switch (part.type) {
        case 'text-start':
        case 'text-end':
          mergeMetadata(block(textBlocks, textOrder, id), fields['providerMetadata']);
          return { kind: 'none' };
        case 'text-delta': {
          const text = block(textBlocks, textOrder, id);
          text.text += delta;
          mergeMetadata(text, fields['providerMetadata']);
          return delta === '' ? { kind: 'none' } : { kind: 'text', text: delta };
        }
        case 'reasoning-start':
        case 'reasoning-end':
          mergeMetadata(block(thinking, thinkingOrder, id), fields['providerMetadata']);
          return { kind: 'none' };
        case 'reasoning-delta': {
          const thought = block(thinking, thinkingOrder, id);
          thought.text += delta;
          mergeMetadata(thought, fields['providerMetadata']);
          return { kind: 'none' };
        }
        case 'tool-call': {
          if (fields['providerExecuted'] === true) return { kind: 'none' };
          const input = fields['input'];
          const metadata = providerMetadata(fields['providerMetadata']);
          toolCalls.push({
            id: typeof fields['toolCallId'] === 'string' ? fields['toolCallId'] : '',
            type: 'function',
            function: {
              name: typeof fields['toolName'] === 'string' ? fields['toolName'] : '',
              arguments: typeof input === 'string' ? input : (JSON.stringify(input) ?? ''),
            },
            ...(metadata === undefined ? {} : { provider_metadata: metadata }),
          });
          return { kind: 'none' };
        }
        case 'finish':
          finished = true;
          usage = readUsage(fields['usage']);
          finishReason = readFinishReason(fields['finishReason']);
          return { kind: 'none' };
        case 'error':
          return { kind: 'error', error: fields['error'] };
        default:
          return { kind: 'none' };
      }
    },

    finish() {
      const content = textOrder.map((text) => text.text).join('');
      const textMetadata = textOrder.reduce<Record<string, Record<string, unknown>>>(
        (merged, text) => mergeInto(merged, text.metadata),
        {},
      );
      const blocks: ThinkingBlock[] = thinkingOrder
        .filter((thought) => thought.text !== '' || Object.keys(thought.metadata).length > 0)
        .map((thought) =>
          Object.keys(thought.metadata).length === 0
            ? { text: thought.text }
            : { text: thought.text, provider_metadata: thought.metadata },
        );
      const message: AssistantMessage = {
        role: 'assistant',
        content: content === '' && toolCalls.length > 0 ? null : content,
        ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        ...(blocks.length === 0 ? {} : { thinking: blocks }),
        ...(Object.keys(textMetadata).length === 0 ? {} : { provider_metadata: textMetadata }),
      };
      return { message, usage, finishReason, finished };
    },
  };
}

function providerMetadata(value: unknown): ProviderMetadata | undefined {
  if (!isRecord(value)) return undefined;
  const merged = mergeInto({}, value);
  return Object.keys(merged).length === 0 ? undefined : merged;
}

function mergeMetadata(block: Block, value: unknown): void {
  if (isRecord(value)) mergeInto(block.metadata, value);
}

/** Adds each provider's fields to `target`'s (a later value of a field wins). */
function mergeInto(
  target: Record<string, Record<string, unknown>>,
  source: Record<string, unknown>,
): Record<string, Record<string, unknown>> {
  for (const [provider, fields] of Object.entries(source)) {
    if (!isRecord(fields)) continue;
    const existing = Object.hasOwn(target, provider) ? target[provider] : undefined;
    const next = { ...existing };
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined && value !== null)
        Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
    }
    if (Object.keys(next).length > 0)
      Object.defineProperty(target, provider, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return target;
}

/** Spec V3/V4 usage (`{ inputTokens: { total, cacheRead }, outputTokens: { total } }`), or V2's flat numbers. */
function readUsage(value: unknown): TokenUsage {
  if (!isRecord(value)) return { inputTokens: 0, outputTokens: 0 };
  const count = (field: unknown, key: string): number | undefined => {
    const raw = isRecord(field) ? field[key] : field;
    return typeof raw === 'number' && Number.isFinite(raw) && raw >= 0 ? raw : undefined;
  };
  const inputTokens = count(value['inputTokens'], 'total') ?? 0;
  const outputTokens = count(value['outputTokens'], 'total') ?? 0;
  const cached = isRecord(value['inputTokens'])
    ? count(value['inputTokens'], 'cacheRead')
    : count(value['cachedInputTokens'], '');
  return cached === undefined
    ? { inputTokens, outputTokens }
    : { inputTokens, outputTokens, cachedInputTokens: cached };
}

/** `{ unified: 'tool-calls' }` (V3, V4) or `'tool-calls'` (V2), as arbiter's finish reason. */
function readFinishReason(value: unknown): FinishReason {
  const unified = isRecord(value) ? value['unified'] : value;
  switch (unified) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'other';
  }
}
