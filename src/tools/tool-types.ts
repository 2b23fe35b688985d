import type { Principal } from '../gate/principal.js';

/** A JSON Schema (2020-12) object. arbiter sends it to the model and enforces it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * What running the tool does to the world. `read` runs freely; `reversible`
 * runs freely and is audited; `irreversible` needs approval unless a rule
 * allows it.
 */
export type SideEffect = 'read' | 'reversible' | 'irreversible';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly step: number;
  readonly toolCallId: string;
  /** The server-side identity of the caller; never taken from the model. */
  readonly principal: Principal | undefined;
  readonly signal: AbortSignal;
  /** The run's language, for texts a tool or an approval rule writes for people. */
  readonly locale: Locale;
}

/** A language for model-facing and progress texts. */
export type Locale = 'en' | 'zh-CN';

/**
 * A tool as the author defines it. `parameters` is the single source of
 * truth: the model is sent exactly this schema, and exactly this schema is
 * enforced before `execute` runs.
 */
export interface ToolDefinition<Args = Record<string, unknown>, Result = unknown> {
  /** verb_object, e.g. `query_order`; providers accept `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** When to use it and when not to, naming the sibling tool. */
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly sideEffect: SideEffect;
  /** Groups this tool belongs to (e.g. `lookup`, `act`); mounted per phase. */
  readonly groups?: readonly string[];
  /** Parameters filled from the principal, removed from the schema the model sees. */
  readonly boundParameters?: Readonly<Record<string, (principal: Principal) => unknown>>;
  /** Top-level fields whose values never leave the live conversation (audit, events, logs). */
  readonly sensitive?: readonly string[];
  /** Progress sentence per locale while the tool runs, e.g. `Looking up your order…`. */
  readonly progress?: Partial<Record<Locale, string>>;
  /**
   * Argument-level rule for the gate, in code: allow automatically, ask a
   * person, or refuse. Without it an `irreversible` tool always asks.
   */
  approval?(args: Args, context: ToolContext): ApprovalVerdict;
  /**
   * The idempotency key of a call, from business fields (e.g.
   * `refund:${order_id}:${amount_cents}`), never from a model-generated id.
   * A second call with the same key returns the first outcome unexecuted.
   */
  idempotencyKey?(args: Args, context: ToolContext): string;
  /** Rolls back a `reversible` call. */
  undo?(args: Args, result: Result, context: ToolContext): Promise<void> | void;
  /** Per-call time limit in milliseconds. */
  readonly timeoutMs?: number;
  /** True when a timed-out call may be retried by the model (it changed nothing). Otherwise a timeout stops the run. */
  readonly retrySafe?: boolean;
  execute(args: Args, context: ToolContext): Promise<Result> | Result;
}

/** What an argument-level approval rule says about one call. */
export type ApprovalVerdict =
  | { readonly verdict: 'allow'; readonly rule: string }
  | { readonly verdict: 'require'; readonly rule: string; readonly reason: string }
  | { readonly verdict: 'deny'; readonly rule: string; readonly message: string };

/** The function-calling definition sent to a model. */
export interface ToolSpec {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}

/** Everything a tool call can end with, as data. */
export type ToolOutcome =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly error: ToolErrorPayload };

export interface ToolErrorPayload {
  readonly code: string;
  readonly retryable: boolean;
  /** The model-facing text: what went wrong and what to do about it. */
  readonly message: string;
  readonly issues?: readonly ValidationIssueSummary[];
}

/** One problem with one field, as shown to callers of `arbiter validate`. */
export interface ValidationIssueSummary {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}
