import type { ChatMessage, SystemMessage, ToolMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import { groupMessageUnits, type MessageUnit } from '../core/message-units.js';
import type { TokenUsage } from '../core/run-usage.js';
import { contextTexts } from './context-texts.js';
import { countConversationTokens } from './count-message-tokens.js';

/** Compression starts when a request would fill this share of the model's window. */
export const COMPRESSION_THRESHOLD = 0.7;
/**
 * Compression aims below this share, so the next few turns fit without
 * compressing again; the rest of the window is left for output and the next
 * tool results.
 */
export const COMPRESSION_TARGET = 0.5;

/** What compression keeps verbatim whatever else goes: the session's state. */
export interface PinnedState {
  /** Parameters the user confirmed (the session's slots). */
  readonly slots?: Readonly<Record<string, unknown>>;
  /** Options the user explicitly refused. */
  readonly refused?: readonly string[];
  /** Steps planned but not done yet. */
  readonly unfinished?: readonly string[];
}

/** Turns earlier conversation into a summary: a model call, counted in the run's budget. */
export type Summarize = (request: {
  readonly messages: readonly ChatMessage[];
  /** The summary of what came before `messages`, to fold in. */
  readonly previous: string | undefined;
  readonly signal?: AbortSignal;
}) => Promise<{ readonly text: string; readonly usage: TokenUsage }>;

/** A summary and the conversation prefix it covers: `messages.slice(headLength, upTo)`. */
export interface CachedSummary {
  readonly upTo: number;
  readonly text: string;
}

export type CompressionStage = 'none' | 'tool_output' | 'middle_turns' | 'summary';

export interface CompressOptions {
  readonly messages: readonly ChatMessage[];
  /** The most tokens the result may have (as `count` counts them). */
  readonly targetTokens: number;
  /** Whether a tool changes something (its `sideEffect` is not `read`): its results are kept verbatim. */
  readonly isWriteTool: (name: string) => boolean;
  /** Counts a request. Default: the tokenizer's count of the messages alone. */
  readonly count?: (messages: readonly ChatMessage[]) => number;
  readonly pinned?: PinnedState;
  /** Without it, compression stops after dropping middle turns. */
  readonly summarize?: Summarize;
  /** A summary made earlier in the same conversation, reused when it still covers the right prefix. */
  readonly previousSummary?: CachedSummary;
  readonly locale?: Locale;
  readonly signal?: AbortSignal;
}

export interface CompressionResult {
  readonly messages: readonly ChatMessage[];
  /** The last stage that was needed; `none` when the conversation already fit. */
  readonly stage: CompressionStage;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** False when even the parts kept verbatim exceed the target. */
  readonly fits: boolean;
  /** Tool outputs replaced by a stub. */
  readonly stubbedToolResults: number;
  /** Messages left out (dropped, or folded into the summary) apart from the stubs. */
  readonly removedMessages: number;
  /** The summary in use, to pass back as `previousSummary` next time. */
  readonly summary: CachedSummary | undefined;
  /** What the summary call cost, when one was made; add it to the run's usage. */
  readonly usage: TokenUsage | undefined;
}

interface Turn {
  /** Indexes into the unit list. */
  readonly units: readonly number[];
}

/**
 * Brings a conversation under `targetTokens`, in the order that loses least:
 * first the raw output of read tools is replaced by a stub (oldest first,
 * never the latest batch), then middle turns are dropped (every turn between
 * the first and the current one, then the completed steps inside the
 * current one), and only then are the earlier turns summarised by a model
 * call. An assistant message's tool calls and their tool messages are kept
 * or removed together. Always kept verbatim: the leading system messages,
 * the pinned state (confirmed parameters, refused options, unfinished
 * steps), the current turn's request and latest step, and every tool call
 * that changed something with its result. Stops at the first stage after
 * which the conversation fits.
 *
 * @example
 * const result = await compressContext({
 *   messages,
 *   targetTokens: 64_000,
 *   isWriteTool: (name) => (registry.get(name)?.definition.sideEffect ?? 'read') !== 'read',
 *   pinned: { slots: session.slots },
 *   summarize: summarizeWithModel({ model }),
 * });
 */
export async function compressContext(options: CompressOptions): Promise<CompressionResult> {
  const { messages, targetTokens, isWriteTool, pinned = {}, locale = 'en' } = options;
  const count = options.count ?? countMessagesOnly;
  const texts = contextTexts(locale);
  const tokensBefore = count(messages);
  const unchanged: CompressionResult = {
    messages,
    stage: 'none',
    tokensBefore,
    tokensAfter: tokensBefore,
    fits: true,
    stubbedToolResults: 0,
    removedMessages: 0,
    summary: undefined,
    usage: undefined,
  };
  if (tokensBefore <= targetTokens) return unchanged;

  let headLength = 0;
  while (messages[headLength]?.role === 'system') headLength += 1;
  const head = messages.slice(0, headLength);
  const units = groupMessageUnits(messages.slice(headLength)).map((unit) => ({
    ...unit,
    start: unit.start + headLength,
  }));
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
  }
  const writes = new Set(
    units.flatMap((unit, index) => {
      const first = unit.messages[0];
      const changesSomething =
        first?.role === 'assistant' && (first.tool_calls ?? []).some((call) => isWriteTool(call.function.name));
      return changesSomething ? [index] : [];
    }),
  );
  const turns = splitTurns(units);
  const current = turns.at(-1) ?? { units: [] };
  const earlierUnits = turns.slice(0, -1).flatMap((turn) => turn.units);
  const tail = units.length - 1;

  const stubbed = new Set<ToolMessage>();
  const dropped = new Set<number>();
  let summary: CachedSummary | undefined;
  let usage: TokenUsage | undefined;
  let stage: CompressionStage = 'tool_output';

  const isReadResult = (message: ChatMessage): message is ToolMessage =>
    message.role === 'tool' && !isWriteTool(toolNames.get(message.tool_call_id) ?? '');
  const stubs = new Map<ToolMessage, ToolMessage>();
  const stubOf = (message: ToolMessage): ToolMessage => {
    let stub = stubs.get(message);
    if (stub === undefined) {
      const tool = toolNames.get(message.tool_call_id) ?? 'the tool';
      stub = {
        role: 'tool',
        tool_call_id: message.tool_call_id,
        content: texts.stub({ tool, characters: message.content.length }),
      };
      stubs.set(message, stub);
    }
    return stub;
  };
  const withStubs = (unit: MessageUnit, stubAllReads: boolean): ChatMessage[] =>
    unit.messages.map((message) =>
      isReadResult(message) && (stubAllReads || stubbed.has(message)) ? stubOf(message) : message,
    );
  const summarised = new Set(earlierUnits);
  const inSummary = (index: number) => summary !== undefined && summarised.has(index);
  const isRemoved = (index: number) => dropped.has(index) || inSummary(index);
  const render = (): ChatMessage[] => {
    const output: ChatMessage[] = [...head];
    const state = stateMessage(pinned, texts);
    if (state !== undefined) output.push(state);
    if (summary !== undefined) output.push({ role: 'system', content: texts.summary({ text: summary.text }) });
    // What the summary covers is not counted again in the removal note.
    const removed = units.reduce(
      (total, unit, index) =>
        total + (dropped.has(index) && !writes.has(index) && !inSummary(index) ? unit.messages.length : 0),
      0,
    );
    let marked = false;
    units.forEach((unit, index) => {
      if (!isRemoved(index)) {
        output.push(...withStubs(unit, false));
        return;
      }
      if (writes.has(index)) {
        output.push(...withStubs(unit, true));
        return;
      }
      if (!marked && removed > 0 && !inSummary(index)) {
        output.push({ role: 'system', content: texts.removed({ messages: removed }) });
        marked = true;
      }
    });
    return output;
  };
  const finish = (): CompressionResult => {
    const result = render();
    const tokensAfter = count(result);
    return {
      messages: result,
      stage,
      tokensBefore,
      tokensAfter,
      fits: tokensAfter <= targetTokens,
      stubbedToolResults: stubbed.size,
      removedMessages: units.reduce(
        (total, unit, index) => total + (isRemoved(index) && !writes.has(index) ? unit.messages.length : 0),
        0,
      ),
      summary,
      usage,
    };
  };
  const fits = () => count(render()) <= targetTokens;

  // 1. Raw output of read tools, oldest first; the latest batch is the step in progress.
  for (const [index, unit] of units.entries()) {
    if (index === tail && unit.messages[0]?.role === 'assistant') break;
    for (const message of unit.messages) {
      if (!isReadResult(message) || message.content.length <= stubOf(message).content.length) continue;
      stubbed.add(message);
    }
    if (stubbed.size > 0 && fits()) return finish();
  }
  if (fits()) return finish();

  // 2. Middle turns: those between the first and the current one, then finished steps of the current one.
  stage = 'middle_turns';
  for (const turn of turns.slice(1, -1)) {
    for (const index of turn.units) if (!writes.has(index)) dropped.add(index);
    if (fits()) return finish();
  }
  for (const index of current.units.slice(1, -1)) {
    if (writes.has(index)) continue;
    dropped.add(index);
    if (fits()) return finish();
  }

  // 3. Summary of every turn before the current one.
  if (options.summarize === undefined || summarised.size === 0) return finish();
  const boundary = units[current.units[0] ?? units.length]?.start ?? messages.length;
  stage = 'summary';
  const previous = options.previousSummary;
  if (previous !== undefined && previous.upTo === boundary) {
    summary = previous;
  } else {
    const from =
      previous !== undefined && previous.upTo < boundary && previous.upTo >= headLength ? previous.upTo : headLength;
    const input = earlierUnits
      .filter((index) => (units[index]?.start ?? 0) >= from)
      .flatMap((index) => withStubs(units[index] as MessageUnit, false));
    const made = await options.summarize({
      messages: input,
      previous: from === headLength ? undefined : previous?.text,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    summary = { upTo: boundary, text: made.text };
    usage = made.usage;
  }
  return finish();
}

function countMessagesOnly(messages: readonly ChatMessage[]): number {
  return countConversationTokens({ messages });
}

/** Turns start at each user message; anything before the first one belongs to the first turn. */
function splitTurns(units: readonly MessageUnit[]): Turn[] {
  const turns: number[][] = [];
  units.forEach((unit, index) => {
    if (unit.messages[0]?.role === 'user' || turns.length === 0) turns.push([index]);
    else turns.at(-1)?.push(index);
  });
  return turns.map((indexes) => ({ units: indexes }));
}

function stateMessage(pinned: PinnedState, texts: ReturnType<typeof contextTexts>): SystemMessage | undefined {
  const slots =
    pinned.slots !== undefined && Object.keys(pinned.slots).length > 0 ? JSON.stringify(pinned.slots) : undefined;
  const refused = pinned.refused ?? [];
  const unfinished = pinned.unfinished ?? [];
  if (slots === undefined && refused.length === 0 && unfinished.length === 0) return undefined;
  return { role: 'system', content: texts.state({ slots, refused, unfinished }) };
}
