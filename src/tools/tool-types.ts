import type { CallHistory } from '../core/call-history.js';
import type { JsonSchema } from '../core/json-schema.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { FieldDisplay } from './field-display.js';
import type { JsonSchemaArguments } from './json-schema-arguments.js';
import type { StandardJsonSchema, StandardJsonSchemaOutput } from './standard-json-schema.js';

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
  /**
   * What already ran: this run's, this session's and this principal's
   * calls of today, read-only (see `CallHistory`). For argument-level rules
   * that must add up, e.g. "automatic while today's automatic refunds stay
   * under 50.00 yuan".
   */
  readonly history: CallHistory;
  /**
   * Reports how far a long call has come (`progress` of `total`, if known);
   * each report becomes a `tool:progress` event of the run. Set by the
   * runtime; an MCP server's progress notifications arrive here.
   */
  readonly reportProgress?: (update: ToolProgress) => void;
}

/** How far a running call has come, for a `tool:progress` event. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  /** A short sentence from the tool (for an MCP tool, the server's): internal, not sent to browsers. */
  readonly message?: string;
}

/** The principal's fields a parameter can be bound to. */
export type PrincipalField = 'tenantId' | 'userId';

/**
 * Where a bound parameter's value comes from: a field of the principal
 * (`'tenantId'`, `'userId'`), or a function of the principal. The registry
 * learns which fields a function reads by calling it once with a probe, so
 * `(principal) => principal.userId` counts as a user binding.
 */
export type BoundParameter = PrincipalField | ((principal: Principal) => unknown);

/**
 * Whose data a tool reads or changes, declared so the registry can hold the
 * tool to it:
 *
 * - `global`: the same for every caller (a catalogue, exchange rates); binds
 *   nothing from the principal.
 * - `tenant`: one tenant's data (its catalogue, its staff's queue); binds a
 *   parameter from `tenantId` and keys its data by it.
 * - `tenant_user`: one user's data within one tenant (a customer's orders);
 *   binds parameters from both `tenantId` and `userId` and keys its data by
 *   both. A user id is unique only within its tenant: a tool keyed by user
 *   alone hands tenant A's C1001 the data of tenant B's C1001.
 *
 * Undeclared, it is inferred from the bindings (`tenant_user` when both are
 * bound, `tenant` when only the tenant is); either way a tool that binds a
 * user but no tenant is refused at registration.
 */
export type DataScope = 'global' | 'tenant' | 'tenant_user';

/**
 * Whose an idempotency key is. The runtime prefixes every key with the
 * caller's tenant, so the same key string of two tenants never meets.
 *
 * - `principal` (default): the key belongs to the calling principal (tenant +
 *   user). A replay can only return a principal's own earlier outcome.
 * - `tenant`: one key for the whole tenant, for actions several people of a
 *   tenant may repeat (two members of staff refunding the same order), so
 *   the action still happens once. The first outcome is returned only to
 *   the principal who claimed the key; anyone else of the tenant is refused
 *   (`claimed_by_another_user`) and never sees it.
 */
export type IdempotencyScope = 'principal' | 'tenant';

/**
 * A tool as the author defines it. `parameters` is the single source of
 * truth: the model is sent exactly this schema, and exactly this schema is
 * enforced before `execute` runs.
 */
export interface ToolDefinition<Args = Record<string, unknown>, Result = unknown> extends ToolBehaviour<Args, Result> {
  readonly parameters: JsonSchema;
  /**
   * Parameters filled from the principal, removed from the schema the model
   * sees; whatever the model sends for them is overwritten. A tool that binds
   * the user must bind the tenant too:
   * `{ tenant_id: 'tenantId', user_id: 'userId' }`.
   */
  readonly boundParameters?: Readonly<Record<string, BoundParameter>>;
}

/**
 * What `defineTool` takes when the argument type is read from the schema:
 * `parameters` is a JSON Schema (written inline or `as const`) or a
 * Standard Schema that can give its JSON Schema (zod 4, ArkType 2, valibot
 * through `toStandardJsonSchema`), and `execute`, `approval`,
 * `idempotencyKey`, `reconcile` and `undo` receive `ToolArguments` of it.
 */
export interface TypedToolDefinition<Parameters extends ToolParameters, Bound extends BoundParameters, Result>
  extends ToolBehaviour<ToolArguments<Parameters, Bound>, Result> {
  readonly parameters: Parameters;
  /** As `ToolDefinition.boundParameters`; each becomes an optional argument of the principal's type. */
  readonly boundParameters?: Bound;
}

/** What a tool's `parameters` may be given as to `defineTool`. */
export type ToolParameters = JsonSchema | StandardJsonSchema;

/** Parameters bound to the principal: the parameter's name and where its value comes from. */
export type BoundParameters = Readonly<Record<string, BoundParameter>>;

/**
 * The arguments a tool's functions receive: the type of what its schema
 * lets through (a Standard Schema's output type, its defaults filled in; or
 * the type of a JSON Schema written `as const`, a property with a `default`
 * present; `Record<string, unknown>` for a schema typed only as
 * `JsonSchema`), with each bound parameter replaced by the principal's
 * value. A bound parameter is optional: it is absent when the run has no
 * principal.
 *
 * @example
 * type Args = ToolArguments<typeof orderSchema, { tenant_id: 'tenantId' }>;
 * // { order_id: string; tenant_id?: string }
 */
export type ToolArguments<Parameters, Bound = BoundParameters> = BindArguments<SchemaArguments<Parameters>, Bound>;

type SchemaArguments<Parameters> = Parameters extends StandardJsonSchema
  ? StandardJsonSchemaOutput<Parameters>
  : JsonSchemaArguments<Parameters> extends infer Args
    ? unknown extends Args
      ? Record<string, unknown>
      : Args
    : never;

/** No bindings: none declared (`keyof Bound` is `never`), or none inferred (the wide `BoundParameters`). */
type BindArguments<Args, Bound> = string extends keyof Bound
  ? Args
  : keyof Bound extends never
    ? Args
    : FlattenArguments<Omit<Args, keyof Bound> & { -readonly [Name in keyof Bound]?: BoundValue<Bound[Name]> }>;

type BoundValue<Binding> = Binding extends PrincipalField
  ? Principal[Binding]
  : Binding extends (principal: Principal) => infer Value
    ? Value
    : unknown;

type FlattenArguments<Args> = { [Key in keyof Args]: Args[Key] } & {};

/** Everything a tool definition holds besides its schema and bound parameters. */
export interface ToolBehaviour<Args, Result> {
  /** verb_object, e.g. `query_order`; providers accept `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** When to use it and when not to, naming the sibling tool. */
  readonly description: string;
  readonly sideEffect: SideEffect;
  /**
   * A fingerprint of the definition as mounted (a third party's tool: see
   * `mcpToolFingerprint`); a different fingerprint is a different tool to
   * the gate. Unset for a tool defined in code.
   */
  readonly fingerprint?: string;
  /** Groups this tool belongs to (e.g. `lookup`, `act`); mounted per phase. */
  readonly groups?: readonly string[];
  /** Whose data the tool touches (see `DataScope`); checked against `boundParameters` at registration. */
  readonly dataScope?: DataScope;
  /** Top-level fields whose values never leave the live conversation (audit, events, logs). */
  readonly sensitive?: readonly string[];
  /**
   * How a person reads a field on the approval card, the desk and the audit
   * (the model sends and sees the raw value): `{ amount_cents: { kind:
   * 'money', currency: 'CNY' } }` shows 20000 as "200.00 CNY" / "¥200.00".
   */
  readonly display?: Readonly<Record<string, FieldDisplay>>;
  /** Progress sentence per locale while the tool runs, e.g. `Looking up your order…`. */
  readonly progress?: Partial<Record<Locale, string>>;
  /**
   * Argument-level rule for the gate, in code: allow automatically, ask a
   * person, or refuse. Without it an `irreversible` tool always asks. It may
   * read `context.history` (and then returns a promise) to add up what
   * already ran.
   */
  approval?(args: Args, context: ToolContext): ApprovalVerdict | Promise<ApprovalVerdict>;
  /**
   * The idempotency key of a call, from business fields (e.g.
   * `refund:${order_id}:${amount_cents}`), never from a model-generated id.
   * The runtime scopes it by tenant and, by default, by user (see
   * `idempotencyScope`): a second call with the same key by the same
   * principal returns the first outcome unexecuted.
   */
  idempotencyKey?(args: Args, context: ToolContext): string;
  /** Whose the idempotency key is. Default `principal`. */
  readonly idempotencyScope?: IdempotencyScope;
  /**
   * Asks the outside system whether a call with this idempotency key took
   * effect, for a call whose earlier attempt was interrupted with no
   * recorded result (its process died, it timed out, the run was stopped).
   * The runtime calls it before deciding anything about such a call: a
   * resumed run, a retried identical call, a new run presenting the same
   * key. `happened` completes the recorded result from `result` (replayed,
   * audited as `reconciled:ok`); `not_happened` lets the call run once (the
   * key is re-taken atomically, so two racing reconcilers cannot both run
   * it); `unknown`, or a throw, leaves it refused as `outcome_unknown`.
   * `key` is the tool's own key (`idempotencyKey`), not the scoped one.
   */
  reconcile?(
    args: Args,
    key: string,
    context: ToolContext,
  ): ReconcileAnswer<NoInfer<Result>> | Promise<ReconcileAnswer<NoInfer<Result>>>;
  /**
   * True when the tool sends data outside (e-mail, HTTP, posting). Once a
   * conversation holds untrusted content (see `untrustedOutput`), every
   * egress call waits for a person, whatever its tier says.
   */
  readonly egress?: boolean;
  /**
   * The tool's results carry third-party content (a fetched page, a
   * customer's message, another server's data): the conversation counts as
   * holding untrusted content from then on, and egress calls need a person.
   * `true` names the source after the tool; a string names it as people
   * should read it in the approval card (`the order messages`); a function
   * decides per result (a name, or undefined for a result that carries none,
   * e.g. recalled facts that all came from the user). It holds for the
   * tool's failures too: the text of every `RetryableToolError` or
   * `FatalToolError` it throws marks the conversation (named by the string,
   * else the tool's name), since an error is as easily a third party's words
   * as a result. A tool without it marks an error that quotes a third party
   * with the error's own `untrusted`.
   */
  readonly untrustedOutput?: boolean | string | ((result: unknown) => string | undefined);
  /** Rolls back a `reversible` call. */
  undo?(args: Args, result: NoInfer<Result>, context: ToolContext): Promise<void> | void;
  /** Per-call time limit in milliseconds. */
  readonly timeoutMs?: number;
  /**
   * True when `execute` keeps `timeoutMs` itself: it rejects with
   * `ToolTimeoutError` once a call has run that long, and stops when
   * `context.signal` aborts. The runtime then runs it under no timer and
   * abort signal of its own (a fresh `AbortSignal` costs several
   * microseconds a call) and passes it the run's signal. For a tool whose
   * client already keeps a timer per request, as an MCP tool's does.
   * Without `timeoutMs` it has no effect: the run's default limit is kept
   * by the runtime.
   */
  readonly enforcesTimeout?: boolean;
  /** True when a timed-out call may be retried by the model (it changed nothing). Otherwise a timeout stops the run. */
  readonly retrySafe?: boolean;
  execute(args: Args, context: ToolContext): Promise<Result> | Result;
}

/** What a tool's `reconcile` found out about an interrupted call. */
export type ReconcileAnswer<Result = unknown> =
  /** The effect took place: `result` is what `execute` would have returned. */
  | { readonly status: 'happened'; readonly result: Result }
  /** The outside system has no trace of it: the call may run once. */
  | { readonly status: 'not_happened' }
  /** Nobody can tell: a person must check. */
  | { readonly status: 'unknown' };

/** What an argument-level approval rule says about one call. */
export type ApprovalVerdict =
  | { readonly verdict: 'allow'; readonly rule: string }
  | { readonly verdict: 'require_approval'; readonly rule: string; readonly reason: string }
  | { readonly verdict: 'deny'; readonly rule: string; readonly message: string };
