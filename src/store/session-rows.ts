import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { RecordedToolResult } from '../core/run-journal.js';
import type { ToolOutcome } from '../core/tool-outcome.js';
import type { ActiveRun, Session, SessionStatus, SessionSummary } from './session-store.js';

/** A row of the `sessions` table, as both backends read it. */
export interface SessionRow {
  session_id: string;
  tenant_id: string | null;
  user_id: string | null;
  status: SessionStatus;
  active_run_id: string | null;
  run_steps: number;
  run_input_tokens: number;
  run_output_tokens: number;
  run_cached_tokens: number;
  run_last_seq: number;
  run_cost: number;
  step_count: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  slots: string;
  message_count: number;
  version: number;
  forked_from: string | null;
  forked_at: number | null;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  ttl_ms: number | null;
  run_locale: string | null;
  run_model: string | null;
}

/**
 * The row as a summary (what `list` returns).
 *
 * @example
 * const summaries = rows.map(toSummary);
 */
export function toSummary(row: SessionRow): SessionSummary {
  return {
    id: row.session_id,
    tenantId: row.tenant_id ?? undefined,
    userId: row.user_id ?? undefined,
    status: row.status,
    activeRunId: row.active_run_id ?? undefined,
    messageCount: row.message_count,
    stepCount: row.step_count,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    cost: row.cost,
    version: row.version,
    forkedFrom: row.forked_from ?? undefined,
    forkedAt: row.forked_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at ?? undefined,
    ttlMs: row.ttl_ms ?? undefined,
    locale: toLocale(row.run_locale),
    model: row.run_model ?? undefined,
  };
}

/**
 * A stored language, if it is one arbiter speaks (a store written by a newer version may hold others).
 *
 * @example
 * toLocale('fr'); // undefined
 */
export function toLocale(value: string | null): Locale | undefined {
  return value === 'en' || value === 'zh-CN' ? value : undefined;
}

/**
 * The run the row says is in progress, with its counters as last committed.
 *
 * @example
 * toActiveRun(row)?.runId;
 */
export function toActiveRun(row: SessionRow): ActiveRun | undefined {
  if (row.active_run_id === null) return undefined;
  return {
    runId: row.active_run_id,
    steps: row.run_steps,
    usage: {
      inputTokens: row.run_input_tokens,
      outputTokens: row.run_output_tokens,
      cachedInputTokens: row.run_cached_tokens,
      totalTokens: row.run_input_tokens + row.run_output_tokens,
    },
    lastSeq: row.run_last_seq,
    cost: row.run_cost,
  };
}

/**
 * The row and its messages (as stored, in position order, read in the same snapshot) as the session.
 *
 * @example
 * const session = toSession(row, messageRows.map((entry) => entry.message));
 */
export function toSession(row: SessionRow, messages: readonly string[]): Session {
  // `toSummary`'s fields in its order, less `activeRunId` and `messageCount`, written out: a copy of the summary
  // without two of its keys, spread into another object, missed V8's inline caches on every call (about 8k
  // instructions a miss, three a session; issue 48). `session-rows.test.ts` holds the two to the same keys.
  return {
    id: row.session_id,
    tenantId: row.tenant_id ?? undefined,
    userId: row.user_id ?? undefined,
    status: row.status,
    stepCount: row.step_count,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    cost: row.cost,
    version: row.version,
    forkedFrom: row.forked_from ?? undefined,
    forkedAt: row.forked_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at ?? undefined,
    ttlMs: row.ttl_ms ?? undefined,
    locale: toLocale(row.run_locale),
    model: row.run_model ?? undefined,
    activeRun: toActiveRun(row),
    messages: parseMessages(messages),
    slots: parseSlots(row),
  };
}

/**
 * Stored messages (JSON text, in position order) as the messages they are.
 *
 * @example
 * const messages = parseMessages(rows.map((entry) => entry.message));
 */
export function parseMessages(messages: readonly string[]): ChatMessage[] {
  return messages.map((message) => JSON.parse(message) as ChatMessage);
}

/**
 * The row's slots, a fresh object every call.
 *
 * @example
 * const slots = row === undefined ? undefined : parseSlots(row);
 */
export function parseSlots(row: Pick<SessionRow, 'slots'>): Record<string, unknown> {
  return JSON.parse(row.slots) as Record<string, unknown>;
}

/** What a new session's row holds besides its defaults, in the order of the `sessions` columns both dialects insert. */
export interface NewSessionValues {
  readonly sessionId: string;
  readonly tenantId: string | null;
  readonly userId: string | null;
  /** The slots as stored (JSON). */
  readonly slots: string;
  /** `created_at` and `updated_at`. */
  readonly now: number;
  readonly expiresAt: number | null;
  readonly ttlMs: number | null;
}

/**
 * The row `create` inserts: the principal's tenant and user, the slots, and
 * for a session with a TTL its first expiry.
 *
 * @example
 * const values = newSessionValues({ sessionId, principal, ttlMs, slots, now: Date.now() });
 */
export function newSessionValues({
  sessionId,
  principal,
  ttlMs,
  slots,
  now,
}: {
  sessionId: string;
  principal: Principal | undefined;
  ttlMs: number | undefined;
  slots: Readonly<Record<string, unknown>>;
  now: number;
}): NewSessionValues {
  return {
    sessionId,
    tenantId: principal?.tenantId ?? null,
    userId: principal?.userId ?? null,
    slots: JSON.stringify(slots),
    now,
    ...expiry(ttlMs, now),
  };
}

/** What a fork's row holds: the original's owner, slots and last run's language and model, and its own TTL. */
export interface ForkedSessionValues extends NewSessionValues {
  /** `message_count` and `forked_at`: where the original was cut. */
  readonly cut: number;
  readonly forkedFrom: string;
  readonly locale: string | null;
  readonly model: string | null;
}

/**
 * The row `fork` inserts for a copy of `row` cut at message `cut`: the TTL
 * is the one asked for, else the original's. The slots are the stored JSON,
 * so the fork shares no object with the original.
 *
 * @example
 * const values = forkedSessionValues({ row, newSessionId, cut, ttlMs, now: Date.now() });
 */
export function forkedSessionValues({
  row,
  newSessionId,
  cut,
  ttlMs,
  now,
}: {
  row: SessionRow;
  newSessionId: string;
  cut: number;
  ttlMs: number | undefined;
  now: number;
}): ForkedSessionValues {
  return {
    sessionId: newSessionId,
    tenantId: row.tenant_id,
    userId: row.user_id,
    slots: row.slots,
    now,
    ...expiry(ttlMs ?? row.ttl_ms ?? undefined, now),
    cut,
    forkedFrom: row.session_id,
    locale: row.run_locale,
    model: row.run_model,
  };
}

function expiry(ttlMs: number | undefined, now: number): { expiresAt: number | null; ttlMs: number | null } {
  return { expiresAt: ttlMs === undefined ? null : now + ttlMs, ttlMs: ttlMs ?? null };
}

/** A row of `tool_results` as both backends read it. */
export interface ToolResultRow {
  tool_call_id: string;
  tool: string;
  content: string;
  outcome: string;
}

/**
 * A stored tool result as the journal answers with it.
 *
 * @example
 * const result = row === undefined ? undefined : toRecordedToolResult(row);
 */
export function toRecordedToolResult(row: ToolResultRow): RecordedToolResult {
  return {
    toolCallId: row.tool_call_id,
    tool: row.tool,
    content: row.content,
    outcome: JSON.parse(row.outcome) as ToolOutcome,
  };
}

/**
 * A tool result's row, in the order both dialects insert `tool_results`:
 * run, tool call, session, tool, content, outcome (JSON), time.
 *
 * @example
 * `INSERT INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at) VALUES (…)`
 */
export function toolResultValues({
  runId,
  sessionId,
  result,
  now,
}: {
  runId: string;
  sessionId: string;
  result: RecordedToolResult;
  now: number;
}): [string, string, string, string, string, string, number] {
  return [runId, result.toolCallId, sessionId, result.tool, result.content, JSON.stringify(result.outcome), now];
}
