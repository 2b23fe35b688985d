import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { TokenUsage } from '../core/run-usage.js';
import type { ToolRoutingRecord } from '../events/agent-event.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { askRouterModel } from './ask-router-model.js';
import { chooseTools, inOrder } from './choose-tools.js';
import { type RoutedToolSet, routedToolSet } from './routed-tool-set.js';
import { DEFAULT_ROUTER_TIMEOUT_MS, DEFAULT_ROUTING_TOP_K, type RoutingOptions } from './routing-options.js';
import { routingTexts } from './routing-texts.js';
import type { QueryPart } from './tool-search-index.js';

/** How many scores the routing record keeps. */
const recordedScores = 10;

/** A step's routing: the tools to send, and what the router model used, if it was asked. */
export interface RoutedStep {
  readonly tools: RoutedToolSet;
  /** The router model's tokens, to add to the run's usage; undefined when no model was asked or it reported none. */
  readonly usage: TokenUsage | undefined;
  /** The model that answered the routing question, for pricing. */
  readonly routerModel: string | undefined;
}

/**
 * Chooses the tools one model call is sent, from the mounted set: those the
 * conversation is in the middle of using (called since the latest user
 * message, including a call to a tool that was not sent, which is how that
 * tool gets sent next), those named in `always`, and the best `topK` for the
 * latest user message and the task, by the router model when one is given
 * (its answer checked, the lexical ranking used on any failure) or by BM25.
 * The sent order is the mounted order. The record says what was chosen, the
 * scores and why.
 *
 * @example
 * const step = await routeTools({ tools: registry, messages, options: { topK: 6 } });
 * await model.generate({ messages, tools: step.tools.specs });
 */
export async function routeTools({
  tools,
  messages,
  options,
  locale = 'en',
  signal,
}: {
  tools: ToolSet;
  messages: readonly ChatMessage[];
  options: RoutingOptions;
  locale?: Locale;
  signal?: AbortSignal | undefined;
}): Promise<RoutedStep> {
  const started = performance.now();
  const topK = Math.max(0, Math.floor(options.topK ?? DEFAULT_ROUTING_TOP_K));
  const onNoMatch = options.onNoMatch ?? 'all';
  const latest = latestUserText(messages);
  const query: QueryPart[] = [{ text: latest, weight: 1 }];
  if (options.task !== undefined) query.push({ text: options.task, weight: 0.5 });
  const inUse = toolsInUse(messages).filter((name) => tools.get(name) !== undefined);
  const kept = [...inUse, ...(options.always ?? [])];
  const lexical = chooseTools({ specs: tools.specs, query, topK, kept, inUse: inUse.length > 0, onNoMatch });
  const scores = lexical.ranked
    .slice(0, recordedScores)
    .map(({ name, score }) => ({ tool: name, score: Math.round(score * 100) / 100 }));
  const finish = (
    names: readonly string[],
    reason: ToolRoutingRecord['reason'],
    extra: { fallback?: string; usage?: TokenUsage | undefined; routerModel?: string | undefined } = {},
  ): RoutedStep => {
    const routing: ToolRoutingRecord = {
      tools: names,
      offered: tools.specs.length,
      reason,
      ...(extra.fallback === undefined ? {} : { fallback: extra.fallback }),
      kept: lexical.kept,
      scores,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    return {
      tools: routedToolSet({ mounted: tools, names, routing }),
      usage: extra.usage,
      routerModel: extra.routerModel,
    };
  };
  if (options.model === undefined || lexical.reason === 'all_fit') return finish(lexical.tools, lexical.reason);
  const answer = await askRouterModel({
    model: options.model,
    specs: tools.specs,
    query: latest,
    task: options.task,
    topK,
    timeoutMs: options.modelTimeoutMs ?? DEFAULT_ROUTER_TIMEOUT_MS,
    texts: routingTexts(locale),
    signal,
  });
  const used = { usage: answer.usage, routerModel: answer.model };
  if (!answer.ok) {
    const reason = lexical.reason === 'no_match' ? 'no_match' : 'lexical_fallback';
    return finish(lexical.tools, reason, { ...used, fallback: answer.failure });
  }
  const chosen = new Set([...lexical.kept, ...answer.tools]);
  if (answer.tools.length === 0 && inUse.length === 0) {
    return finish(onNoMatch === 'all' ? lexical.all : inOrder(lexical.all, chosen), 'no_match', used);
  }
  return finish(inOrder(lexical.all, chosen), 'model', used);
}

/**
 * The text of the latest user message ('' when there is none).
 *
 * @example
 * latestUserText([{ role: 'user', content: 'Refund SO20260901' }]); // 'Refund SO20260901'
 */
export function latestUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}

/**
 * The tools called since the latest user message, in first-call order: the
 * tools the conversation is in the middle of using.
 *
 * @example
 * toolsInUse(result.messages); // ['query_order']
 */
export function toolsInUse(messages: readonly ChatMessage[]): string[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role !== 'user') start -= 1;
  const names = new Set<string>();
  for (const message of messages.slice(start)) {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) names.add(call.function.name);
  }
  return [...names];
}
