import type { ChatMessage, ToolCall } from '../../core/chat-message.js';
import type { Locale } from '../../core/locale.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { UsageError } from '../../errors/usage-error.js';
import type { Model } from '../../models/model.js';
import { toStrictTools } from '../../models/strict-tools.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import { type NullReading, validateToolCall } from '../../validation/validate-tool-call.js';
import { includesValues } from '../check-expectations.js';
import { type ErrorKind, errorKindOf } from './error-kind.js';
import { conditionMessage, type YieldCondition, yieldConditions } from './yield-conditions.js';
import { rawArgumentsOf, type YieldCall, type YieldCorpus, type YieldIntent } from './yield-corpus.js';

/** The system prompt of every conversation of the experiment, in every condition (so the tools' prefix is shared). */
export const yieldSystemPrompt =
  "You are the assistant of an online shop. The signed-in customer is C1001. Act for them with the tools: call a tool with the values from the customer's words.";

/** How a model's first call for a request came out. */
export type FirstCallOutcome = 'intended' | 'valid_other' | 'invalid' | 'no_call';

export interface FirstCallRow {
  readonly phase: 'first_call';
  readonly model: string;
  /** `original`: the tools as defined; `strict`: after arbiter's strict-schema preparation (`toStrictTools`). */
  readonly tools: 'original' | 'strict';
  readonly intent: string;
  readonly outcome: FirstCallOutcome;
  readonly kind?: ErrorKind;
  readonly call?: { readonly name: string; readonly arguments: string };
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What the model did after the refusal: corrected in one or two turns, a valid call of something else, still invalid, or no call. */
export type YieldOutcome = 'corrected_1' | 'corrected_2' | 'wrong_call' | 'still_invalid' | 'no_call';

export interface YieldRow {
  readonly phase: 'yield';
  readonly model: string;
  readonly call: string;
  readonly source: YieldCall['source'];
  readonly kind: ErrorKind;
  readonly condition: YieldCondition;
  readonly outcome: YieldOutcome;
  /** The first call after the refusal is valid. */
  readonly nextValid: boolean;
  /** The first call after the refusal is valid and the intended call. */
  readonly nextRight: boolean;
  /** Model turns after the first refusal (1 or 2). */
  readonly turns: number;
  /** Summed over the turns: tokens of the whole context (as a hosted API bills them), and generated tokens. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The first call after the refusal, as written (or the text when there was none). */
  readonly next: string;
}

export type ExperimentRow = FirstCallRow | YieldRow;

/**
 * The correction-yield experiment on one model. First each request of the
 * corpus (`intents`) is put to the model with the tools as defined and again
 * after `toStrictTools`, and its first call is checked: the share of invalid
 * first calls is what would reach a tool unvalidated in a framework that
 * trusts the model; its invalid calls join the corpus as its own mistakes.
 * Then every broken call is answered once per condition (arbiter's message,
 * field only, vague, the AI SDK's and OpenAI Agents' default texts, arbiter's
 * zh-CN message in a zh-CN conversation), and the model's next call is
 * checked: valid, and the intended call (tool and values). A second refusal
 * in the same condition gives it a second turn. Every conversation starts
 * with the same system prompt and tools, so a local model evaluates that
 * prefix once; rows go to `onRow` as they come, and rows in `done` are
 * skipped (a run can be resumed).
 *
 * @example
 * await runYieldExperiment({ model, corpus, tools, registry, onRow: (row) => rows.push(row) });
 */
export async function runYieldExperiment({
  model,
  corpus,
  tools,
  registry,
  conditions = yieldConditions,
  maxTurns = 2,
  limit,
  kinds,
  callIds,
  shard = { index: 1, count: 1 },
  firstCalls = 'both',
  done = new Map<string, ExperimentRow>(),
  concurrency = 1,
  onRow,
}: {
  model: Model;
  corpus: YieldCorpus;
  tools: readonly ToolSpec[];
  registry: ToolRegistry;
  conditions?: readonly YieldCondition[];
  maxTurns?: number;
  /** At most this many broken calls, taken a kind at a time (see `stratify`). */
  limit?: number;
  /** Only the broken calls of these kinds, among those `limit` takes (default: every kind). */
  kinds?: readonly ErrorKind[];
  /** Only the broken calls with these ids (`own:refund-status-0`, `shop:order-id-as-number`), among those taken. */
  callIds?: readonly string[];
  /**
   * Only every `count`-th broken call of that order, from the `index`-th (1-based): processes with the
   * same `count` and each its own `index` share the calls without overlap.
   */
  shard?: { readonly index: number; readonly count: number };
  /**
   * Which first-call phases run: both tool forms (default), the tools as defined only, or none (the model's
   * own mistakes are then taken from the first-call rows in `done`). `strict`: only the first calls after
   * `toStrictTools`, and no broken calls (a second process can take them).
   */
  firstCalls?: 'both' | 'original' | 'strict' | 'none';
  /** Rows already written, by `rowKey`: not asked again (a first call's row still yields the model's own mistake). */
  done?: ReadonlyMap<string, ExperimentRow>;
  /** Conversations asked at once (a local model with as many sequences evaluates them in the same batches). */
  concurrency?: number;
  onRow: (row: ExperimentRow) => void;
}): Promise<void> {
  const own: YieldCall[] = [];
  const variants =
    firstCalls === 'both'
      ? (['original', 'strict'] as const)
      : firstCalls === 'original'
        ? (['original'] as const)
        : firstCalls === 'strict'
          ? (['strict'] as const)
          : [];
  for (const variant of variants) {
    const specs = variant === 'strict' ? toStrictTools(tools) : tools;
    // Two at most: a sequence that takes another form of the tools evaluates that prefix anew.
    const rows = await inPool({
      items: corpus.intents,
      concurrency: Math.min(concurrency, 2),
      run: async (intent) => {
        const previous = done.get(`first_call|${model.name}|${variant}|${intent.id}`);
        const row =
          previous?.phase === 'first_call' ? previous : await firstCall({ model, intent, specs, registry, variant });
        if (!done.has(rowKey(row))) onRow(row);
        return row;
      },
    });
    if (variant === 'original') {
      for (const [index, row] of rows.entries()) own.push(...ownMistake(corpus.intents[index] as YieldIntent, row));
    }
  }
  if (!variants.some((variant) => variant === 'original')) {
    // The first calls were asked in an earlier run: the model's own mistakes come from its rows.
    for (const intent of corpus.intents) {
      const row = done.get(`first_call|${model.name}|original|${intent.id}`);
      if (row?.phase === 'first_call') own.push(...ownMistake(intent, row));
    }
  }
  if (firstCalls === 'strict') return;
  const broken = [...corpus.calls, ...own].flatMap((call) => {
    const english = refusal({ registry, call, locale: 'en' });
    return english === undefined ? [] : [{ call, kind: errorKindOf(english.issues) }];
  });
  /** The ids of `--calls` that none of `items` has. */
  const idsNotIn = (items: readonly { readonly call: YieldCall }[]) =>
    callIds?.filter((id) => !items.some(({ call }) => call.id === id)) ?? [];
  const unknownIds = idsNotIn(broken);
  if (unknownIds.length > 0) {
    throw new UsageError({
      message: `--calls: no refused call with id ${unknownIds.map((id) => `"${id}"`).join(', ')} (a model's own ids, own:<intent>, exist once its first calls were asked)`,
    });
  }
  const taken = stratify(broken)
    .slice(0, limit)
    .filter(({ kind }) => kinds === undefined || kinds.includes(kind));
  // An id that --limit or --kinds leaves out would make the run ask nothing about it, silently.
  const leftOut = idsNotIn(taken);
  if (leftOut.length > 0) {
    throw new UsageError({
      message: `--calls: ${leftOut.map((id) => `"${id}"`).join(', ')} left out by --limit or --kinds`,
    });
  }
  const asked = taken
    .filter(({ call }) => callIds === undefined || callIds.includes(call.id))
    .filter((_, position) => position % shard.count === shard.index - 1)
    .flatMap(({ call, kind }) => conditions.map((condition) => ({ call, kind, condition })))
    .filter(({ call, condition }) => !done.has(`yield|${model.name}|${call.id}|${condition}`));
  await inPool({
    items: asked,
    concurrency,
    run: async ({ call, kind, condition }) => {
      onRow(await correction({ model, call, condition, tools, registry, maxTurns, kind }));
    },
  });
}

/** The broken call a model's own invalid first call makes (none when its first call was not invalid). */
function ownMistake(intent: YieldIntent, row: FirstCallRow): YieldCall[] {
  if (row.outcome !== 'invalid' || row.call === undefined) return [];
  return [
    {
      id: `own:${intent.id}`,
      source: 'own',
      user: intent.user,
      user_zh: intent.user_zh,
      tool: row.call.name,
      arguments: row.call.arguments,
      intended_tool: intent.tool,
      expected: intent.expected,
    },
  ];
}

/** Runs `run` on every item, at most `concurrency` at once, in order of start; the results in the items' order. */
async function inPool<Item, Result>({
  items,
  concurrency,
  run,
}: {
  items: readonly Item[];
  concurrency: number;
  run: (item: Item) => Promise<Result>;
}): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await run(items[index] as Item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}

/**
 * The broken calls a kind at a time (the first of each kind, then the second
 * of each, …), the model's own first, so that a run cut short still covers
 * every kind evenly.
 *
 * @example
 * stratify([{ call: a, kind: 'enum' }, { call: b, kind: 'enum' }, { call: c, kind: 'pattern' }]); // a, c, b
 */
export function stratify<Item extends { readonly call: YieldCall; readonly kind: ErrorKind }>(
  items: readonly Item[],
): Item[] {
  const ordered = [
    ...items.filter((item) => item.call.source === 'own'),
    ...items.filter((item) => item.call.source !== 'own'),
  ];
  const byKind = new Map<ErrorKind, Item[]>();
  for (const item of ordered) byKind.set(item.kind, [...(byKind.get(item.kind) ?? []), item]);
  const result: Item[] = [];
  for (let index = 0; result.length < ordered.length; index += 1) {
    for (const group of byKind.values()) {
      const item = group[index];
      if (item !== undefined) result.push(item);
    }
  }
  return result;
}

/** The key that identifies a row across runs, for resuming. */
export function rowKey(row: ExperimentRow): string {
  return row.phase === 'yield'
    ? `yield|${row.model}|${row.call}|${row.condition}`
    : `first_call|${row.model}|${row.tools}|${row.intent}`;
}

async function firstCall({
  model,
  intent,
  specs,
  registry,
  variant,
}: {
  model: Model;
  intent: YieldIntent;
  specs: readonly ToolSpec[];
  registry: ToolRegistry;
  variant: 'original' | 'strict';
}): Promise<FirstCallRow> {
  const response = await model.generate({
    messages: [
      { role: 'system', content: yieldSystemPrompt },
      { role: 'user', content: intent.user },
    ],
    tools: specs,
    maxOutputTokens: 96,
  });
  const base = {
    phase: 'first_call' as const,
    model: model.name,
    tools: variant,
    intent: intent.id,
    inputTokens: response.usage.inputTokens,
    outputTokens: response.usage.outputTokens,
  };
  const call = response.message.tool_calls?.[0];
  if (call === undefined) return { ...base, outcome: 'no_call' };
  const written = { name: call.function.name, arguments: call.function.arguments };
  const nulls: NullReading = variant === 'strict' ? 'strict_mode' : 'as_sent';
  const checked = validateToolCall({ registry, name: written.name, rawArguments: written.arguments, nulls });
  if (!checked.ok) return { ...base, outcome: 'invalid', kind: errorKindOf(checked.issues), call: written };
  const intended = written.name === intent.tool && includesValues(checked.args, intent.expected);
  return { ...base, outcome: intended ? 'intended' : 'valid_other', call: written };
}

function refusal({ registry, call, locale }: { registry: ToolRegistry; call: YieldCall; locale: Locale }) {
  const checked = validateToolCall({ registry, name: call.tool, rawArguments: rawArgumentsOf(call), locale });
  return checked.ok ? undefined : checked;
}

async function correction({
  model,
  call,
  condition,
  tools,
  registry,
  maxTurns,
  kind,
}: {
  model: Model;
  call: YieldCall;
  condition: YieldCondition;
  tools: readonly ToolSpec[];
  registry: ToolRegistry;
  maxTurns: number;
  kind: ErrorKind;
}): Promise<YieldRow> {
  const locale: Locale = condition === 'arbiter_zh' ? 'zh-CN' : 'en';
  const toolMessage = (id: string, name: string, rawArguments: string): ChatMessage => {
    const english = validateToolCall({ registry, name, rawArguments });
    const localized = locale === 'en' ? english : validateToolCall({ registry, name, rawArguments, locale });
    const issues = english.ok ? [] : english.issues;
    const message = localized.ok ? '' : localized.message;
    const content = conditionMessage({
      condition,
      refused: {
        toolName: name,
        rawArguments,
        issues,
        message,
        schema: registry.get(name)?.spec.function.parameters,
        toolNames: registry.names,
      },
    });
    return { role: 'tool', tool_call_id: id, content };
  };
  const broken: ToolCall = {
    id: 'call_0',
    type: 'function',
    function: { name: call.tool, arguments: rawArgumentsOf(call) },
  };
  const messages: ChatMessage[] = [
    { role: 'system', content: yieldSystemPrompt },
    { role: 'user', content: locale === 'zh-CN' ? call.user_zh : call.user },
    { role: 'assistant', content: null, tool_calls: [broken] },
    toolMessage(broken.id, broken.function.name, broken.function.arguments),
  ];
  let inputTokens = 0;
  let outputTokens = 0;
  let nextValid = false;
  let nextRight = false;
  let next = '';
  for (let turn = 1; turn <= maxTurns; turn += 1) {
    const response = await model.generate({ messages, tools, maxOutputTokens: 96 });
    inputTokens += response.usage.inputTokens;
    outputTokens += response.usage.outputTokens;
    const made = response.message.tool_calls?.[0];
    const row = (outcome: YieldOutcome): YieldRow => ({
      phase: 'yield',
      model: model.name,
      call: call.id,
      source: call.source,
      kind,
      condition,
      outcome,
      nextValid,
      nextRight,
      turns: turn,
      inputTokens,
      outputTokens,
      next,
    });
    if (turn === 1)
      next = made === undefined ? (response.message.content ?? '') : `${made.function.name} ${made.function.arguments}`;
    if (made === undefined) return row('no_call');
    const checked = validateToolCall({ registry, name: made.function.name, rawArguments: made.function.arguments });
    if (checked.ok) {
      const right = made.function.name === call.intended_tool && includesValues(checked.args, call.expected);
      if (turn === 1) {
        nextValid = true;
        nextRight = right;
      }
      if (!right) return row('wrong_call');
      return row(turn === 1 ? 'corrected_1' : 'corrected_2');
    }
    if (turn === maxTurns) return row('still_invalid');
    const id = `call_${turn}`;
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ ...made, id }] },
      toolMessage(id, made.function.name, made.function.arguments),
    );
  }
  throw new Error('unreachable: the loop returns on its last turn');
}
