/**
 * How far back a rule looks: this run, this session, or everything the
 * calling principal (tenant + user) ran since the start of the current day.
 */
export type HistoryWindow = 'run' | 'session' | 'day';

/** The decisions under which a call executed: allowed by its tier, by a rule (`auto_approved`), or by a person. */
export type ExecutedDecision = 'allowed' | 'auto_approved' | 'approved';

/** What a rule asks the history for. */
export interface CallHistoryQuery {
  /** The tool whose calls count. Default: the tool being checked. */
  readonly tool?: string;
  readonly within: HistoryWindow;
  /** Only calls let through this way, e.g. `['auto_approved']`. Default: all of them. */
  readonly decisions?: readonly ExecutedDecision[];
  /** For `day`: whose calendar day, as an IANA time zone (`Asia/Shanghai`). Default `UTC`. */
  readonly timeZone?: string;
}

/**
 * One earlier call that executed and succeeded (audit outcome `ok`). Replays
 * of an idempotency key, refused and failed calls are not in the history:
 * they changed nothing.
 */
export interface PastCall {
  readonly at: number;
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly toolCallId: string;
  readonly tool: string;
  /** As audited: bound parameters filled, sensitive fields redacted. */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly decision: ExecutedDecision;
  readonly rule: string | undefined;
}

/**
 * The read-only view of what already ran that a tool's `approval` rule and
 * gate rules get as `context.history`. Reads are scoped by the runtime to
 * the caller (its run, session, or tenant + user): a rule cannot look at
 * another principal's calls.
 *
 * While a rule that read the history lets a call through automatically, the
 * principal's other calls whose rules read the history wait until that call
 * is audited, so two concurrent runs cannot both count on the same headroom.
 *
 * @example
 * approval: async ({ amount_cents }, { history }) => {
 *   const today = await history.calls({ within: 'day', decisions: ['auto_approved'], timeZone: 'Asia/Shanghai' });
 *   const total = today.reduce((sum, call) => sum + Number(call.arguments.amount_cents), amount_cents);
 *   return total < 5000 ? { verdict: 'allow', rule: 'daily_auto_limit' } : { verdict: 'require_approval', rule: 'daily_auto_limit', reason: '…' };
 * },
 */
export interface CallHistory {
  calls(query: CallHistoryQuery): Promise<readonly PastCall[]>;
}

/** What a history store is asked: the query with the caller's scope resolved. */
export interface CallHistoryFilter {
  readonly tool: string;
  readonly runId?: string;
  readonly sessionId?: string;
  /** With `userId`: this principal's calls (`null` for calls that had no principal). */
  readonly tenantId?: string | null;
  readonly userId?: string | null;
  /** Calls at or after this time (milliseconds since the epoch). */
  readonly since?: number;
  readonly decisions?: readonly ExecutedDecision[];
}

/**
 * Where the history is read from: an audit log that can answer queries
 * (`SqliteAuditLog`; `MemoryAuditLog` for a run without a store).
 *
 * @example
 * const calls = await audit.findCalls({ tool: 'apply_refund', runId });
 */
export interface CallHistorySource {
  findCalls(filter: CallHistoryFilter): Promise<readonly PastCall[]> | readonly PastCall[];
  /**
   * Waits until no other holder, in any process on the same store, has
   * `principalKey`'s history reserved, and reserves it; resolves with the
   * function that gives it back. A store shared by several nodes has it, so
   * a cumulative limit holds across nodes as it does in one process. A
   * reservation whose holder died (no renewal) lapses after the store's
   * lease, so a killed node cannot block the principal for good.
   */
  reserveHistory?(principalKey: string): Promise<HistoryRelease>;
}

/**
 * Gives a history reservation back; calling it again does nothing.
 *
 * @example
 * const release = await audit.reserveHistory?.('shop\u0000C1001');
 * await release?.();
 */
export type HistoryRelease = () => Promise<void>;

/**
 * A history with nothing in it, for code that runs a tool outside a run
 * (undo, tests).
 *
 * @example
 * const context: ToolContext = { ...rest, history: emptyCallHistory };
 */
export const emptyCallHistory: CallHistory = { calls: async () => [] };

/**
 * True when an audit log can also answer history queries.
 *
 * @example
 * if (isCallHistorySource(audit)) await audit.findCalls({ tool: 'apply_refund', runId });
 */
export function isCallHistorySource(value: unknown): value is CallHistorySource {
  return (
    typeof value === 'object' && value !== null && typeof (value as { findCalls?: unknown }).findCalls === 'function'
  );
}
