import { describeFact } from '../context/recalled-facts.js';
import type { Awaitable } from '../core/awaitable.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { FactSourceKind, MemoryFact, MemoryStore } from '../core/memory-store.js';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { MemoryFactError } from '../errors/memory-fact-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import { defineTool } from '../tools/define-tool.js';
import type { ToolContext, ToolDefinition } from '../tools/tool-types.js';
import type { Embedder } from './embedder.js';
import { RECALL_FACTS_TOOL } from './keep-recalled-facts.js';
import { memoryTexts } from './memory-texts.js';
import { recallMemory } from './recall-memory.js';

const day = 24 * 60 * 60 * 1000;

/** Keys whose values are personal data: stored, recalled, but redacted in exports. */
export const DEFAULT_SENSITIVE_FACT_KEYS: readonly string[] = [
  'phone',
  'mobile',
  'email',
  'address',
  'home_address',
  'id_number',
  'passport',
  'card_number',
  'bank_account',
  'password',
  'birthday',
];

/** What `save_fact` receives: the model's fields, and the owner bound from the principal. */
export interface SaveFactArgs {
  readonly tenant_id?: string;
  readonly user_id?: string;
  readonly key: string;
  readonly value: string;
  readonly learned_from: 'user' | 'tool_result' | 'inference';
  readonly from_tool?: string;
  readonly valid_days?: number;
}

/** What `save_fact` returns to the model (and what its undo reads). */
export interface SaveFactResult {
  readonly fact_id: string;
  readonly key: string;
  readonly value: string;
  /** True when the value was already the current one: nothing was written, and undo does nothing. */
  readonly unchanged: boolean;
  /** Whether the fact counts as the user's own word. */
  readonly trusted: boolean;
  readonly replaced: string | undefined;
  readonly expires_on: string | undefined;
}

/** What `recall_facts` receives. */
export interface RecallFactsArgs {
  readonly tenant_id?: string;
  readonly user_id?: string;
  readonly key?: string;
  readonly query?: string;
  readonly limit?: number;
}

/** The options of {@link createMemoryTools}. */
export interface MemoryToolsOptions {
  readonly memory: MemoryStore;
  /** With it, recall is hybrid (lexical + vectors) and saved facts store their embedding. */
  readonly embedder?: Embedder;
  /**
   * The conversation of the call, to check a fact the model says came from
   * the user: it counts as the user's (`trusted`) only when its value
   * appears in one of the user's own messages. Without it no fact saved
   * through the tool is trusted. See `conversationFromSessions`.
   */
  readonly conversation?: (context: ToolContext) => Awaitable<readonly ChatMessage[] | undefined>;
  /** The language of the descriptions. Default `en`. */
  readonly locale?: Locale;
  /** How long a fact stays valid when the model does not say. Default 180 days. */
  readonly defaultValidDays?: number;
  /** The longest validity the model may ask for. Default 730 days. */
  readonly maxValidDays?: number;
  /** Keys whose values are redacted in exports. Default {@link DEFAULT_SENSITIVE_FACT_KEYS}. */
  readonly sensitiveKeys?: readonly string[];
  /** The clock of expiry dates. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The two memory tools any agent can mount: `save_fact` (reversible:
 * audited like every call, undone by `undoToolCall`, which retracts the
 * fact and brings the previous value back) and `recall_facts` (read).
 * Both bind `tenant_id` and `user_id` from the principal (data scope
 * `tenant_user`): the model never sees or chooses whose memory it reads or
 * writes, and without a principal both refuse.
 *
 * Provenance is decided here, not by the model: a fact is the user's
 * (`source.kind: 'user'`, `trusted`) only when the model says so AND its
 * value appears in one of the user's own messages of the conversation;
 * anything from a tool result, a document or the model's inference is
 * stored untrusted. Trusted or not, a fact is data in the context: nothing
 * in arbiter reads memory to decide a permission, a principal or a gate.
 *
 * @example
 * const registry = new ToolRegistry();
 * for (const tool of createMemoryTools({ memory: backend.memory, conversation: conversationFromSessions(backend.sessions) })) {
 *   registry.register(tool);
 * }
 */
export function createMemoryTools({
  memory,
  embedder,
  conversation,
  locale = 'en',
  defaultValidDays = 180,
  maxValidDays = 730,
  sensitiveKeys = DEFAULT_SENSITIVE_FACT_KEYS,
  now = Date.now,
}: MemoryToolsOptions): readonly [ToolDefinition<SaveFactArgs, SaveFactResult>, ToolDefinition<RecallFactsArgs>] {
  const texts = memoryTexts(locale);
  const owner = (args: { tenant_id?: string; user_id?: string }) => {
    if (args.tenant_id === undefined || args.user_id === undefined || args.tenant_id === '' || args.user_id === '') {
      throw new FatalToolError({ code: 'memory_needs_user', message: texts.noPrincipal() });
    }
    return { tenantId: args.tenant_id, userId: args.user_id };
  };
  const boundParameters = { tenant_id: 'tenantId', user_id: 'userId' } as const;
  const ownerProperties = {
    tenant_id: { type: 'string', description: texts.tenantId },
    user_id: { type: 'string', description: texts.userId },
  } as const;
  /** A fact's key, the same for saving and recalling: a recall by a key no save accepts would find nothing. */
  const keyProperty = { type: 'string', description: texts.key, pattern: '^[a-z][a-z0-9_]{0,63}$' } as const;

  const saveFact = defineTool<SaveFactArgs, SaveFactResult>({
    name: 'save_fact',
    description: texts.saveDescription,
    parameters: {
      type: 'object',
      properties: {
        ...ownerProperties,
        key: { ...keyProperty, examples: ['city', 'preferred_language'] },
        value: { type: 'string', description: texts.value, minLength: 1, maxLength: 1_000 },
        learned_from: { type: 'string', description: texts.learnedFrom, enum: ['user', 'tool_result', 'inference'] },
        from_tool: { type: 'string', description: texts.fromTool, maxLength: 64 },
        valid_days: { type: 'integer', description: texts.validDays, minimum: 1, maximum: maxValidDays },
      },
      required: ['tenant_id', 'user_id', 'key', 'value', 'learned_from'],
      additionalProperties: false,
    },
    sideEffect: 'reversible',
    boundParameters,
    dataScope: 'tenant_user',
    groups: ['memory'],
    progress: { en: 'Remembering that…', 'zh-CN': '正在记下…' },
    execute: async (args, context) => {
      const { tenantId, userId } = owner(args);
      const value = args.value.trim();
      const [current] = await memory.recall({ tenantId, userId, key: args.key, limit: 1 });
      const saidByUser =
        args.learned_from === 'user' && userSaid(value, (await conversation?.(context)) ?? undefined) === true;
      const kind: FactSourceKind = saidByUser ? 'user' : args.learned_from === 'tool_result' ? 'tool' : 'model';
      // The same value again changes nothing, unless the user's own word now backs a value that was untrusted.
      if (current !== undefined && current.fact.value === value && (current.fact.trusted || !saidByUser)) {
        return describeSaved(current.fact, { unchanged: true, replaced: undefined });
      }
      if (current?.fact.trusted === true && !saidByUser) {
        throw new FatalToolError({ code: 'fact_said_by_user', message: texts.keepsUsersWord({ key: args.key }) });
      }
      const days = args.valid_days ?? defaultValidDays;
      const [embedding] = embedder === undefined ? [] : await embedder.embed([`${args.key} ${value}`]);
      try {
        const { fact, superseded } = await memory.save({
          tenantId,
          userId,
          key: args.key,
          value,
          source: {
            kind,
            runId: context.runId,
            callId: context.toolCallId,
            ...(kind === 'tool' && args.from_tool !== undefined ? { tool: args.from_tool } : {}),
          },
          trusted: saidByUser,
          sensitive: sensitiveKeys.includes(args.key),
          expiresAt: now() + days * day,
          ...(embedding === undefined ? {} : { embedding }),
        });
        return describeSaved(fact, { unchanged: false, replaced: superseded?.value });
      } catch (error) {
        if (MemoryFactError.isInstance(error)) {
          throw new RetryableToolError({
            code: 'invalid_fact',
            message: texts.invalidFact({ field: error.field }),
            field: error.field,
          });
        }
        throw error;
      }
    },
    undo: async (args, result) => {
      if (result.unchanged) return;
      await memory.retract({ ...owner(args), factId: result.fact_id });
    },
  });

  const recallFacts = defineTool<RecallFactsArgs>({
    name: RECALL_FACTS_TOOL,
    description: texts.recallDescription,
    parameters: {
      type: 'object',
      properties: {
        ...ownerProperties,
        key: { ...keyProperty, examples: ['city'] },
        query: { type: 'string', description: texts.query, minLength: 1, maxLength: 500 },
        limit: { type: 'integer', description: texts.limit, minimum: 1, maximum: 20 },
      },
      required: ['tenant_id', 'user_id'],
      additionalProperties: false,
    },
    sideEffect: 'read',
    boundParameters,
    dataScope: 'tenant_user',
    groups: ['memory'],
    progress: { en: 'Checking what I remember…', 'zh-CN': '正在查找记忆…' },
    // A fact a tool result said is third-party content still, and so is one the model inferred (perhaps from a
    // page it read, told to save it as an inference): recalled, either marks the conversation (egress waits).
    untrustedOutput: (result) => {
      const recalled = recalledSources(result);
      return recalled.has('tool_result')
        ? texts.rememberedToolResults
        : recalled.has('inference')
          ? texts.rememberedUnverified
          : undefined;
    },
    execute: async (args, context) => {
      const recalled = await recallMemory({
        memory,
        owner: owner(args),
        limit: args.limit ?? 5,
        signal: context.signal,
        ...(args.key === undefined ? {} : { key: args.key }),
        ...(args.query === undefined ? {} : { query: args.query }),
        ...(embedder === undefined ? {} : { embedder }),
      });
      return {
        facts: recalled.map(({ fact }) => ({
          key: fact.key,
          value: fact.value,
          as_of: new Date(fact.createdAt).toISOString().slice(0, 10),
          source: fact.trusted ? 'user' : fact.source.kind === 'tool' ? 'tool_result' : 'inference',
          verified: fact.trusted,
          statement: describeFact({ fact, locale }),
        })),
      };
    },
  });

  return [saveFact, recallFacts];
}

/** The sources of the facts a `recall_facts` result holds that are not verified as the user's own words. */
function recalledSources(result: unknown): Set<unknown> {
  if (typeof result !== 'object' || result === null) return new Set();
  const facts: unknown = (result as { facts?: unknown }).facts;
  if (!Array.isArray(facts)) return new Set();
  return new Set(
    facts
      .filter((fact: { verified?: unknown }) => fact?.verified !== true)
      .map((fact: { source?: unknown }) => fact?.source),
  );
}

function describeSaved(
  fact: MemoryFact,
  { unchanged, replaced }: { unchanged: boolean; replaced: string | undefined },
): SaveFactResult {
  return {
    fact_id: fact.factId,
    key: fact.key,
    value: fact.value,
    unchanged,
    trusted: fact.trusted,
    replaced,
    expires_on: fact.expiresAt === undefined ? undefined : new Date(fact.expiresAt).toISOString().slice(0, 10),
  };
}

const cjkPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Whether `value` appears, case- and width-insensitively, in one of the
 * user's own messages: as whole words (`m` is not in "my name is Tom"), or,
 * for Chinese, Japanese or Korean text, which has no spaces, as a substring.
 */
function userSaid(value: string, messages: readonly ChatMessage[] | undefined): boolean {
  if (messages === undefined) return false;
  const normalise = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  const wanted = normalise(value);
  if (wanted === '') return false;
  const escaped = wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = cjkPattern.test(wanted)
    ? undefined
    : new RegExp(`(?:^|[^\\p{L}\\p{N}])${escaped}(?:$|[^\\p{L}\\p{N}])`, 'u');
  return messages.some((message) => {
    if (message.role !== 'user') return false;
    const said = normalise(message.content);
    return pattern === undefined ? said.includes(wanted) : pattern.test(said);
  });
}

/**
 * The `conversation` option of {@link createMemoryTools} for runs on a
 * session store: the call's session as stored (the current user message is
 * stored before the run starts).
 *
 * @example
 * createMemoryTools({ memory: backend.memory, conversation: conversationFromSessions(backend.sessions) });
 */
export function conversationFromSessions(sessions: {
  load(sessionId: string): Awaitable<{ readonly messages: readonly ChatMessage[] } | undefined>;
}): (context: ToolContext) => Promise<readonly ChatMessage[] | undefined> {
  return async (context) =>
    context.sessionId === undefined ? undefined : (await sessions.load(context.sessionId))?.messages;
}
