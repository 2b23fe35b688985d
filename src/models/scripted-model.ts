import type { AssistantMessage, ChatMessage, ToolCall } from '../core/chat-message.js';
import { editDistance } from '../util/edit-distance.js';
import { isRecord } from '../util/is-record.js';
import { abortableSleep } from './abortable-sleep.js';
import type { Model, ModelRequest, ModelResponse } from './model.js';
import { type FeedbackIssue, readToolFeedback } from './read-tool-feedback.js';
import type { Script, ScriptStep, ScriptTurn } from './script.js';

const defaultGiveUp = "I'm sorry, I wasn't able to do that. Let me pass this to a colleague.";
const defaultAskUser = 'Could you give me the {field}? It should look like {example}.';
const defaultRefusal = "I'm sorry, that can't be done: {reason}";

/**
 * The offline model. It follows a script (data), and reads the conversation
 * the way a model does: after a failed call it may only use what the tool
 * message says. It corrects a field when the message names the field and
 * shows a valid example, the allowed values or the pattern, looking for a
 * matching value in what the user wrote; it asks the user when only they can
 * know; otherwise it repeats itself or gives up. It keeps no state between
 * calls: everything is derived from the messages it is given.
 *
 * @example
 * const model = new ScriptedModel({ script: { name: 'status', turns: [{ steps: [
 *   { call: { name: 'query_order', arguments: { order_id: 12345 } } },
 *   { say: 'Your order {{query_order.order_id}} is {{query_order.status}}.' },
 * ] }] } });
 */
export class ScriptedModel implements Model {
  readonly name: string;
  readonly #script: Script;
  readonly #latencyMs: number;

  /** `latencyMs`: how long it "thinks" before answering, and a tenth of it between streamed words. */
  constructor({
    script,
    name = `scripted:${script.name}`,
    latencyMs = 0,
  }: { script: Script; name?: string; latencyMs?: number }) {
    this.#script = script;
    this.name = name;
    this.#latencyMs = latencyMs;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    if (this.#latencyMs > 0) await abortableSleep(this.#latencyMs, request.signal);
    const message = this.#decide(request.messages, new Set(request.tools.map((tool) => tool.function.name)));
    if (message.content !== null) {
      for (const piece of message.content.match(/\S+\s*/g) ?? []) {
        if (this.#latencyMs > 0) await abortableSleep(this.#latencyMs / 10, request.signal);
        request.onTextDelta?.(piece);
      }
    }
    const hasCalls = message.tool_calls !== undefined && message.tool_calls.length > 0;
    return {
      message,
      finishReason: hasCalls ? 'tool_calls' : 'stop',
      usage: { inputTokens: estimateTokens(request.messages), outputTokens: estimateTokens([message]) },
    };
  }

  #decide(messages: readonly ChatMessage[], mounted: ReadonlySet<string>): AssistantMessage {
    const lastUser = findLastIndex(messages, (message) => message.role === 'user');
    const userTexts = messages.filter((message) => message.role === 'user').map((message) => message.content ?? '');
    const turn = this.#chooseTurn(userTexts);
    if (turn === undefined) return say(this.#script.giveUp ?? defaultGiveUp);
    const attempts = readAttempts(messages.slice(lastUser + 1));
    const results = new Map<string, unknown>();
    let planIndex = 0;
    for (const attempt of attempts) {
      const planned = turn.steps[planIndex];
      if (
        attempt.feedback.kind === 'result' &&
        planned !== undefined &&
        'call' in planned &&
        planned.call.name === attempt.call.function.name
      ) {
        results.set(attempt.call.function.name, attempt.feedback.data);
        planIndex += 1;
      }
    }
    const callNumber = messages.reduce(
      (count, message) => count + (message.role === 'assistant' ? (message.tool_calls?.length ?? 0) : 0),
      0,
    );
    const last = attempts.at(-1);
    if (last !== undefined && last.feedback.kind !== 'result') {
      return this.#recover({ last, attempts, userTexts, results, turn, callNumber });
    }
    if (mounted.size === 0) return say(finalSay(turn, results) ?? this.#script.giveUp ?? defaultGiveUp);
    const alreadyDone =
      last?.feedback.kind === 'result' && isRecord(last.feedback.data) && 'already_done' in last.feedback.data;
    return this.#perform(turn.steps[planIndex], results, callNumber, alreadyDone);
  }

  #chooseTurn(userTexts: readonly string[]): ScriptTurn | undefined {
    const latest = userTexts.at(-1) ?? '';
    const matching = this.#script.turns.find(
      (turn) => turn.when !== undefined && new RegExp(turn.when, 'i').test(latest),
    );
    if (matching !== undefined) return matching;
    const positional = this.#script.turns.filter((turn) => turn.when === undefined);
    return positional[Math.min(userTexts.length, positional.length) - 1];
  }

  #perform(
    step: ScriptStep | undefined,
    results: ReadonlyMap<string, unknown>,
    callNumber: number,
    alreadyDone = false,
  ): AssistantMessage {
    if (step === undefined) return say(this.#script.giveUp ?? defaultGiveUp);
    if ('say' in step) return say(fillTemplate((alreadyDone ? step.alreadyDone : undefined) ?? step.say, results));
    return callTool(step.call.name, fillArguments(step.call.arguments, results), callNumber);
  }

  #recover({
    last,
    attempts,
    userTexts,
    results,
    turn,
    callNumber,
  }: {
    last: Attempt;
    attempts: readonly Attempt[];
    userTexts: readonly string[];
    results: ReadonlyMap<string, unknown>;
    turn: ScriptTurn;
    callNumber: number;
  }): AssistantMessage {
    const { feedback, call } = last;
    const giveUp = this.#script.giveUp ?? defaultGiveUp;
    if (feedback.kind === 'repeated') return say(finalSay(turn, results) ?? giveUp);
    if (feedback.kind === 'refused') {
      return say((this.#script.onRefusal ?? defaultRefusal).replace('{reason}', feedback.reason.trim()));
    }
    if (feedback.kind === 'invalid') {
      const args = parseObject(call.function.arguments);
      for (const issue of feedback.issues) {
        const fixed = correctField({ issue, sent: args[issue.field], userTexts });
        if (fixed === undefined) {
          const example = issue.hasExample ? JSON.stringify(issue.example) : (issue.allowed ?? []).join(', ');
          return say(
            (this.#script.askUser ?? defaultAskUser)
              .replace('{field}', issue.field.replaceAll('_', ' '))
              .replace('{example}', example),
          );
        }
        args[issue.field] = fixed.value;
      }
      return callTool(call.function.name, args, callNumber);
    }
    if (feedback.kind === 'unclear' && (this.#script.onUnclearError ?? 'repeat') === 'repeat') {
      const repeats = countTrailingRepeats(attempts);
      if (repeats < (this.#script.maxRepeats ?? 1)) {
        return callTool(call.function.name, parseObject(call.function.arguments), callNumber);
      }
    }
    return say(giveUp);
  }
}

interface Attempt {
  readonly call: ToolCall;
  readonly feedback: ReturnType<typeof readToolFeedback>;
}

function readAttempts(turnMessages: readonly ChatMessage[]): Attempt[] {
  const attempts: Attempt[] = [];
  const pending = new Map<string, ToolCall>();
  for (const message of turnMessages) {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) pending.set(call.id, call);
    if (message.role === 'tool') {
      const call = pending.get(message.tool_call_id);
      if (call !== undefined) attempts.push({ call, feedback: readToolFeedback(message.content) });
    }
  }
  return attempts;
}

function countTrailingRepeats(attempts: readonly Attempt[]): number {
  const last = attempts.at(-1);
  if (last === undefined) return 0;
  let repeats = 0;
  for (let index = attempts.length - 2; index >= 0; index -= 1) {
    const earlier = attempts[index];
    if (earlier === undefined || earlier.call.function.name !== last.call.function.name) break;
    if (earlier.call.function.arguments !== last.call.function.arguments) break;
    repeats += 1;
  }
  return repeats;
}

/** Finds a value for a field the message complained about, from the message and the user's own words only. */
function correctField({
  issue,
  sent,
  userTexts,
}: {
  issue: FeedbackIssue;
  sent: unknown;
  userTexts: readonly string[];
}): { value: unknown } | undefined {
  if (issue.allowed !== undefined && issue.allowed.length > 0) {
    const closest = closestAllowed(issue.allowed, sent);
    return closest === undefined ? undefined : { value: closest };
  }
  const shape = issue.pattern ?? (typeof issue.example === 'string' ? shapeOf(issue.example) : undefined);
  if (shape !== undefined) {
    const found = findInUserText(shape, userTexts, sent);
    if (found !== undefined) return { value: found };
  }
  if (sent === undefined) return undefined;
  if (issue.expects === 'string' && (typeof sent === 'number' || typeof sent === 'boolean')) {
    const text = String(sent);
    return shape === undefined || safeRegex(shape)?.test(text) ? { value: text } : undefined;
  }
  if ((issue.expects === 'number' || issue.expects === 'integer') && typeof sent === 'string') {
    const number = Number(sent.replace(/[^\d.-]/g, ''));
    if (!Number.isFinite(number) || sent.trim() === '') return undefined;
    return { value: issue.expects === 'integer' ? Math.round(number) : number };
  }
  return undefined;
}

function closestAllowed(allowed: readonly unknown[], sent: unknown): unknown {
  if (typeof sent !== 'string') return undefined;
  const normalised = normalise(sent);
  let best: { value: unknown; distance: number } | undefined;
  for (const value of allowed) {
    const distance = editDistance(normalised, normalise(String(value)));
    if (best === undefined || distance < best.distance) best = { value, distance };
  }
  if (best === undefined) return undefined;
  return best.distance <= Math.max(2, Math.floor(normalised.length / 3)) ? best.value : undefined;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, '');
}

/** A model generalises from an example: letters stay, digits become \d. */
function shapeOf(example: string): string | undefined {
  if (!/\d/.test(example) || example.length > 40) return undefined;
  return `^${example.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, (digits) => `\\d{${digits.length}}`)}$`;
}

function findInUserText(pattern: string, userTexts: readonly string[], sent: unknown): string | undefined {
  const anchored = safeRegex(pattern);
  if (anchored === undefined) return undefined;
  for (const text of [...userTexts].reverse()) {
    for (const token of text.split(/[\s,;:!?()"'“”‘’。，；：！？（）]+/)) {
      const candidate = token.replace(/[.]+$/, '');
      if (candidate !== '' && candidate !== sent && anchored.test(candidate)) return candidate;
    }
  }
  return undefined;
}

function safeRegex(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern);
  } catch {
    return undefined;
  }
}

function finalSay(turn: ScriptTurn, results: ReadonlyMap<string, unknown>): string | undefined {
  const last = [...turn.steps].reverse().find((step): step is { say: string } => 'say' in step);
  if (last === undefined || results.size === 0) return undefined;
  return fillTemplate(last.say, results);
}

function fillTemplate(template: string, results: ReadonlyMap<string, unknown>): string {
  return template.replace(/\{\{\s*([\w-]+)\.([\w.[\]-]+)\s*\}\}/g, (whole, tool: string, path: string) => {
    const value = readPath(results.get(tool), path);
    return value === undefined ? whole : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function fillArguments(value: unknown, results: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([\w-]+)\.([\w.[\]-]+)\s*\}\}$/.exec(value);
    if (whole !== null) return readPath(results.get(whole[1] ?? ''), whole[2] ?? '') ?? value;
    return fillTemplate(value, results);
  }
  if (Array.isArray(value)) return value.map((item) => fillArguments(item, results));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillArguments(item, results)]));
  }
  return value;
}

function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(/[.[\]]+/).filter(Boolean)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  } catch {
    return {};
  }
}

function say(content: string): AssistantMessage {
  return { role: 'assistant', content };
}

function callTool(name: string, args: unknown, callNumber: number): AssistantMessage {
  const id = `call_${callNumber + 1}`;
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } },
    ],
  };
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item !== undefined && predicate(item)) return index;
  }
  return -1;
}

/** A rough count (four characters a token): the scripted model has no tokenizer of its own. */
function estimateTokens(messages: readonly ChatMessage[]): number {
  let characters = 0;
  for (const message of messages) {
    characters += (message.content ?? '').length;
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? [])
        characters += call.function.arguments.length + call.function.name.length;
  }
  return Math.ceil(characters / 4);
}
