import type { JsonSchema } from '../../core/json-schema.js';
import { allowAllGate } from '../../gate/tool-gate.js';
import type { ToolSet } from '../../tools/tool-registry.js';
import { type ArbiterLoopOptions, type ArbiterToolResult, createGateBridge } from '../gate-bridge.js';

/** The AI SDK's marker of a schema it takes as it is (`jsonSchema()` sets it): no copy of `ai` is loaded for it. */
const aiSdkSchemaMarker = Symbol.for('vercel.ai.schema');

/**
 * A tool's input schema as the AI SDK reads it: at run time the SDK's own
 * JSON-schema shape (marker, `jsonSchema`, no validator: arbiter validates
 * in `execute`, so the model reads arbiter's message); for the type checker
 * a Standard Schema, which AI SDK 6 and 7 both accept.
 */
export interface ArbiterInputSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { readonly value: Record<string, unknown> };
    readonly jsonSchema: { readonly input: () => JsonSchema; readonly output: () => JsonSchema };
  };
}

/** What the SDK hands `needsApproval` and `execute` that arbiter reads. */
export interface AiSdkCallOptions {
  readonly toolCallId: string;
  /** The conversation the call was made in: its assistant messages count the step. */
  readonly messages: readonly unknown[];
}

/** One of arbiter's tools in the shape AI SDK 6 and 7 take (`tool()`'s result). */
export interface ArbiterAiSdkTool {
  readonly description: string;
  readonly inputSchema: ArbiterInputSchema;
  /**
   * True exactly while arbiter's approval of this call waits for a person
   * (recorded the first time it is asked). Absent for a tool no call of
   * which can wait for a person (the gate says so, and it is no egress):
   * the SDK then asks nobody, and `execute` still puts every call through
   * the whole pipeline, gate included.
   */
  readonly needsApproval?: (input: Record<string, unknown>, options: AiSdkCallOptions) => Promise<boolean>;
  /** The whole of arbiter's tool runner; the client's approval answer is not an input to it. */
  readonly execute: (input: Record<string, unknown>, options: AiSdkCallOptions) => Promise<ArbiterToolResult>;
  /** The model reads arbiter's text: the result, or the refusal, or why the call waits. */
  readonly toModelOutput: (options: { readonly output: ArbiterToolResult }) => {
    readonly type: 'text';
    readonly value: string;
  };
}

/** arbiter's tools as an AI SDK `ToolSet`, by name. */
export type ArbiterAiSdkToolSet = Record<string, ArbiterAiSdkTool>;

/**
 * arbiter's gate inside the AI SDK's loop (`generateText`, `streamText`,
 * `ToolLoopAgent`, `useChat`; AI SDK 6 and 7): a `ToolSet` whose every
 * call goes through arbiter's tool runner. The model sees each tool's
 * schema without its bound parameters (filled from the server-side
 * `principal`); a call it gets wrong comes back as arbiter's message (en,
 * zh-CN) for it to correct; the tier gate's "a person must decide" becomes
 * the SDK's own approval request (`needsApproval`), with arbiter's approval
 * recorded at that moment (its id goes to `onApprovalRequired`). The
 * approval stays arbiter's: the client's `approval-response` only makes
 * the SDK call `execute`, which runs the call when arbiter's store holds
 * an approval of exactly this call (run, arguments, definition, policy)
 * by someone other than the requester — through `POST /v1/approvals/:id`
 * or the broker — and otherwise returns arbiter's "waiting" or refusal as
 * the tool result. A call id runs at most once in the conversation,
 * whatever its tier: executed again (the same history sent again), it
 * returns the recorded result. Once arbiter has returned a third party's
 * text in the conversation, every `egress` call asks for approval, in this
 * request and every later one (the mark is arbiter's, in `sessions`, never
 * the client's history). Every call is audited.
 *
 * Build it per request: the principal is the request's.
 *
 * @example
 * const result = streamText({
 *   model,
 *   messages: await convertToModelMessages(uiMessages),
 *   tools: arbiterTools(registry, {
 *     principal, conversationId: chatId, gate, approvals: server.approvals, runs: server.runs,
 *     idempotency, sessions: server.sessions, audit,
 *   }),
 *   stopWhen: stepCountIs(10),
 * });
 */
export function arbiterTools(tools: ToolSet, options: ArbiterLoopOptions): ArbiterAiSdkToolSet {
  const bridge = createGateBridge({ tools, loop: 'ai_sdk', options });
  const gate = options.gate ?? allowAllGate;
  const set: ArbiterAiSdkToolSet = {};
  for (const name of tools.names) {
    const tool = tools.get(name);
    if (tool === undefined) continue;
    const { description, parameters } = tool.spec.function;
    // A tool no call of which can wait for a person (and no egress) gets no `needsApproval`: the SDK asks nobody
    // (no history read, no turn of the microtask queue), and `execute` still puts every call through the pipeline.
    const asksAhead = tool.definition.egress === true || gate.mayRequireApproval?.(tool) !== false;
    const execute: ArbiterAiSdkTool['execute'] = (input, { toolCallId, messages }) =>
      bridge.run({ tool: name, input, toolCallId, step: stepOf(messages) });
    set[name] = asksAhead
      ? {
          description,
          inputSchema: inputSchemaOf(parameters),
          needsApproval: (input, { toolCallId, messages }) =>
            bridge.needsApproval({
              tool: name,
              input,
              toolCallId,
              step: stepOf(messages),
              asked: mentionsCall(messages, toolCallId),
            }),
          execute,
          toModelOutput,
        }
      : { description, inputSchema: inputSchemaOf(parameters), execute, toModelOutput };
  }
  return set;
}

/** The model reads arbiter's text. */
const toModelOutput: ArbiterAiSdkTool['toModelOutput'] = ({ output }) => ({ type: 'text', value: output.text });

/**
 * Each tool's input schema, made once per parameters object (a tool set is
 * built per request; the schema is the same each time, and the SDK only
 * reads it).
 */
const inputSchemas = new WeakMap<JsonSchema, ArbiterInputSchema>();

function inputSchemaOf(parameters: JsonSchema): ArbiterInputSchema {
  let schema = inputSchemas.get(parameters);
  if (schema === undefined) {
    schema = newInputSchema(parameters);
    inputSchemas.set(parameters, schema);
  }
  return schema;
}

function newInputSchema(parameters: JsonSchema): ArbiterInputSchema {
  const schema = {
    [aiSdkSchemaMarker]: true,
    _type: undefined,
    jsonSchema: parameters,
    // No validator: the SDK passes the model's arguments on, and arbiter's validation words what is wrong.
    validate: undefined,
    '~standard': {
      version: 1,
      vendor: 'arbiter',
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => parameters, output: () => parameters },
    },
  } as const;
  return schema;
}

/**
 * Whether the call is already in the conversation: the SDK re-checks a
 * call from the client's history before it executes an approval of it
 * (AI SDK 6 drops the approval when the tool then says it needs none).
 */
function mentionsCall(messages: readonly unknown[], toolCallId: string): boolean {
  return messages.some((message) => {
    const content = (message as { role?: unknown; content?: unknown }).content;
    return (
      (message as { role?: unknown }).role === 'assistant' &&
      Array.isArray(content) &&
      content.some(
        (part: { type?: unknown; toolCallId?: unknown }) => part.type === 'tool-call' && part.toolCallId === toolCallId,
      )
    );
  });
}

/** The step a call was made in: one more than the assistant messages before it. */
function stepOf(messages: readonly unknown[]): number {
  let assistant = 0;
  for (const message of messages) {
    if (typeof message === 'object' && message !== null && (message as { role?: unknown }).role === 'assistant')
      assistant += 1;
  }
  return assistant + 1;
}
