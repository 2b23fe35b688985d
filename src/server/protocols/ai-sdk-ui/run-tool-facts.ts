import type { Awaitable } from '../../../core/awaitable.js';
import type { ChatMessage } from '../../../core/chat-message.js';
import { displayArguments, type ToolFieldPolicy, toolFieldPolicy } from '../../../events/sensitive-fields.js';
import type { SessionStore } from '../../../store/session-store.js';
import type { ToolSet } from '../../../tools/tool-registry.js';

/** What a person may see of one tool call: its input and, once answered, what the model was told. */
export interface ToolCallFacts {
  readonly tool: string;
  /** The arguments, bound parameters removed and sensitive values `[redacted]`; `null` when they were not JSON. */
  readonly input: unknown;
  /** The tool message's content: for a refused call, arbiter's message to the model. */
  readonly result?: string;
  /** The result as a person may see it (`displayToolResult`). */
  readonly output?: unknown;
}

/** Where an encoder reads the run's tool calls from: each `load` answers with what is committed so far. */
export interface ToolFactsSource {
  load(): Awaitable<ReadonlyMap<string, ToolCallFacts>>;
}

/**
 * The tool calls of one run as its session has committed them: the
 * assistant messages' calls and the tool messages answering them, from the
 * run's first message on. Inputs are shown as the approval card shows them
 * (`displayArguments`); results keep the model-facing text, and JSON results
 * lose sensitive values the same way (`displayToolResult`).
 *
 * @example
 * const facts = await sessionToolFacts({ sessions, sessionId, messageOffset: run.messageOffset, tools }).load();
 * facts.get('call_1'); // { tool: 'query_order', input: { order_id: 'SO20260901' }, result: '{"status":"shipped",…}' }
 */
export function sessionToolFacts({
  sessions,
  sessionId,
  messageOffset,
  tools,
}: {
  sessions: Pick<SessionStore, 'load'>;
  sessionId: string;
  messageOffset: number;
  tools: Pick<ToolSet, 'get'>;
}): ToolFactsSource {
  return {
    load: async () => toolFactsOf((await sessions.load(sessionId))?.messages.slice(messageOffset) ?? [], tools),
  };
}

/**
 * The tool calls in `messages` with their answers, as `sessionToolFacts` shows them.
 *
 * @example
 * toolFactsOf(session.messages, registry).get('call_1')?.input;
 */
export function toolFactsOf(
  messages: readonly ChatMessage[],
  tools: Pick<ToolSet, 'get'>,
): ReadonlyMap<string, ToolCallFacts> {
  const facts = new Map<string, ToolCallFacts>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        const policy = displayPolicy(tools, call.function.name);
        facts.set(call.id, { tool: call.function.name, input: displayInput(call.function.arguments, policy) });
      }
    } else if (message.role === 'tool') {
      const known = facts.get(message.tool_call_id);
      if (known === undefined) continue;
      const output = displayToolResult(message.content, displayPolicy(tools, known.tool));
      facts.set(message.tool_call_id, { ...known, result: message.content, output });
    }
  }
  return facts;
}

/**
 * A tool message's content as a person may see it: parsed when it is JSON
 * (sensitive values `[redacted]`, as in the approval card), else the text.
 *
 * @example
 * displayToolResult('{"order_id":"SO1","phone":"138…"}', policy); // { order_id: 'SO1', phone: '[redacted]' }
 */
export function displayToolResult(content: string, policy: ToolFieldPolicy): unknown {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return content;
  }
  return displayValue(value, { isSensitive: policy.isSensitive, boundParameters: [] });
}

/**
 * The display policy of a tool: its `sensitive` list and schema flags, its
 * bound parameters, the name heuristics (as the event projector's).
 *
 * @example
 * displayPolicy(registry, 'apply_refund').isSensitive('phone'); // true
 */
export function displayPolicy(tools: Pick<ToolSet, 'get'>, name: string): ToolFieldPolicy {
  const registered = tools.get(name);
  if (registered === undefined) return toolFieldPolicy({});
  const { definition } = registered;
  return toolFieldPolicy({
    sensitive: definition.sensitive ?? [],
    parameters: definition.parameters,
    boundParameters: [...registered.boundParameterNames, ...Object.keys(definition.boundParameters ?? {})],
  });
}

function displayInput(text: string, policy: ToolFieldPolicy): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return displayValue(value, policy);
}

function displayValue(value: unknown, policy: ToolFieldPolicy): unknown {
  if (Array.isArray(value)) return value.map((item) => displayValue(item, policy));
  if (typeof value !== 'object' || value === null) return value;
  return displayArguments(value as Record<string, unknown>, policy);
}
