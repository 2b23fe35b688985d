import type { Locale } from '../../core/locale.js';
import type { ActiveRun, SessionStatus, SessionSummary } from '../session-store.js';

/** A row of the `sessions` table, as SQLite returns it. */
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

/** The row as a summary (what `list` returns). */
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

/** A stored language, if it is one arbiter speaks (a store written by a newer version may hold others). */
function toLocale(value: string | null): Locale | undefined {
  return value === 'en' || value === 'zh-CN' ? value : undefined;
}

/** The run the row says is in progress, with its counters as last committed. */
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
