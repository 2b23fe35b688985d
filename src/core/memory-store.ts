import type { Awaitable } from './awaitable.js';

/**
 * Where a fact came from. `user`: the user said it (and code checked it
 * against the user's own messages, or the application saved it); `tool`: a
 * tool result said it; `model`: the model inferred it or read it in a text.
 */
export type FactSourceKind = 'user' | 'tool' | 'model';

/** The provenance of one fact: who said it, in which run, through which call. */
export interface FactSource {
  readonly kind: FactSourceKind;
  readonly runId?: string;
  /** The message it was learned from, where the caller knows one. */
  readonly messageId?: string;
  /** The tool call that saved it (`save_fact`'s call id). */
  readonly callId?: string;
  /** The tool whose result it came from, when `kind` is `tool`. */
  readonly tool?: string;
}

/**
 * One structured fact of long-term memory: a key and a short value of one
 * user within one tenant, never a conversation. A new value of the same key
 * supersedes the old one; both are kept (audit), only the current one is
 * recalled.
 *
 * @example
 * const fact: MemoryFact = {
 *   factId: 'f_1', tenantId: 'shop', userId: 'C1001', key: 'city', value: '上海',
 *   source: { kind: 'user', runId: 'run-1' }, trusted: true, sensitive: false,
 *   createdAt: 1_790_000_000_000, expiresAt: undefined, supersedes: undefined, supersededBy: undefined, retractedAt: undefined,
 * };
 */
export interface MemoryFact {
  readonly factId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly key: string;
  readonly value: string;
  readonly source: FactSource;
  /**
   * True only for what the user said or the application saved. A fact from a
   * tool result or a text the model read is untrusted. No fact, trusted or
   * not, ever changes a permission, the principal or a gate decision.
   */
  readonly trusted: boolean;
  /** Its value is redacted in exports. */
  readonly sensitive: boolean;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** After this instant it is never recalled and a purge deletes it. */
  readonly expiresAt: number | undefined;
  /** The fact this one replaced (same key). */
  readonly supersedes: string | undefined;
  /** The fact that replaced this one; undefined for the current value. */
  readonly supersededBy: string | undefined;
  /** Set when the save was undone: never recalled again, kept for audit. */
  readonly retractedAt: number | undefined;
}

/** What a caller asks the store to remember. Tenant and user come from the principal, never from a model. */
export interface SaveFactRequest {
  readonly tenantId: string;
  readonly userId: string;
  readonly key: string;
  readonly value: string;
  readonly source: FactSource;
  readonly trusted: boolean;
  readonly sensitive?: boolean;
  readonly expiresAt?: number;
  /** For hybrid recall: the value's embedding, stored beside it. */
  readonly embedding?: readonly number[];
}

/** One user's facts within one tenant: every read and write of memory names both. */
export interface FactOwner {
  readonly tenantId: string;
  readonly userId: string;
}

/** A recall: exact key lookup plus lexical search, ranked, at most `limit`. */
export interface RecallRequest extends FactOwner {
  /** Facts with exactly this key come first. */
  readonly key?: string;
  /** Free text, matched lexically against keys and values (zh-CN included). */
  readonly query?: string;
  /** Default 5. */
  readonly limit?: number;
}

/** A recalled fact and why it was recalled. Higher `score` ranks first. */
export interface RecalledFact {
  readonly fact: MemoryFact;
  readonly score: number;
  readonly matchedBy: 'key' | 'text' | 'vector';
}

/**
 * Long-term memory: facts always filtered by tenant and user. Every backend
 * (SQLite, PostgreSQL) passes the same contract suite.
 *
 * @example
 * const saved = await memory.save({ tenantId: 'shop', userId: 'C1001', key: 'city', value: '上海', source: { kind: 'user' }, trusted: true });
 * const recalled = await memory.recall({ tenantId: 'shop', userId: 'C1001', query: '上海' });
 */
export interface MemoryStore {
  /** Stores a fact; the current fact of the same key (if any) is superseded by it. */
  save(request: SaveFactRequest): Awaitable<{ readonly fact: MemoryFact; readonly superseded: MemoryFact | undefined }>;
  /** One fact of this owner by id (current, superseded, expired or retracted); undefined when it is another's. */
  get(request: FactOwner & { readonly factId: string }): Awaitable<MemoryFact | undefined>;
  /** Current, unexpired facts matching the key or the query, best first. */
  recall(request: RecallRequest): Awaitable<readonly RecalledFact[]>;
  /** Current, unexpired facts with their embeddings, newest first: the candidates of a vector search. */
  embedded(
    request: FactOwner & { readonly limit: number },
  ): Awaitable<readonly { readonly fact: MemoryFact; readonly embedding: readonly number[] }[]>;
  /** This owner's facts, oldest first: current only, or with `history` every version. */
  list(request: FactOwner & { readonly history?: boolean }): Awaitable<readonly MemoryFact[]>;
  /**
   * Undoes a save: the fact is retracted (kept for audit) and, when it was
   * the current value, the value it superseded is current again. False when
   * the fact is not this owner's or already retracted.
   */
  retract(request: FactOwner & { readonly factId: string }): Awaitable<boolean>;
  /**
   * Deletes for good (a person's right to be forgotten): every version of a
   * key, of the key of `factId`, or, with neither, every fact of the owner.
   * Returns how many rows went.
   */
  forget(request: FactOwner & { readonly key?: string; readonly factId?: string }): Awaitable<number>;
  /** Deletes every fact, of any owner, that expired before now. Returns how many. */
  purgeExpired(): Awaitable<number>;
}
