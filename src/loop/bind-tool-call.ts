import { isCallHistorySource } from '../core/call-history.js';
import type { AuditDecision } from '../gate/audit-log.js';
import { bindPrincipalParameters } from '../gate/bind-principal-parameters.js';
import { createCallHistory, type ScopedCallHistory } from '../gate/create-call-history.js';
import type { GatedCall, ToolCallHead } from '../gate/gated-call.js';
import type { RegisteredTool } from '../tools/tool-registry.js';
import type { ToolContext } from '../tools/tool-types.js';
import { canonicalJson } from '../util/canonical-json.js';
import { redact } from '../util/redact.js';
import { sha256Hex } from '../util/sha256.js';
import type { RunRuntime } from './run-runtime.js';

/**
 * Makes a validated call ready for the gate: the principal's parameters
 * bound, the context the tool runs in (with the call history its rules
 * read), and the arguments redacted (once, for people to read) and
 * serialised. Their hash (for approvals, idempotency and the audit) is
 * taken of that serialisation when first read: before the call goes out
 * when an approval or an idempotency key needs it, otherwise while the tool
 * works (`prepareWhileWaiting`) or, at the latest, for the audit; a tool
 * that changes its arguments object cannot change it. Call
 * `releaseHistory` once the call is decided and audited. Pass
 * `canonicalArguments` (`canonicalJson(validated)`) when already computed:
 * a tool that binds no parameter uses it instead of serialising again.
 *
 * @example
 * const gated = bindToolCall(runtime, head, checked.tool, checked.args);
 * try { ... } finally { gated.releaseHistory(); }
 */
export function bindToolCall(
  runtime: RunRuntime,
  head: ToolCallHead,
  tool: RegisteredTool,
  validated: Record<string, unknown>,
  canonicalArguments?: string,
): GatedCall {
  const { runId, sessionId, principal, audit } = runtime;
  const scopedHistory = createCallHistory({
    source: isCallHistorySource(audit) ? audit : undefined,
    runId,
    sessionId,
    principal,
    tool: head.toolName,
  });
  const args = bindPrincipalParameters({ args: validated, tool, principal });
  const context: ToolContext = {
    runId,
    sessionId,
    step: head.step,
    toolCallId: head.toolCallId,
    principal,
    signal: runtime.signal,
    locale: runtime.locale,
    history: scopedHistory.history,
    reportProgress: ({ progress, total, message }) =>
      runtime.emitter.emit({
        type: 'tool:progress',
        step: head.step,
        toolCallId: head.toolCallId,
        tool: head.toolName,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      }),
  };
  // Without bound parameters `args` is a copy of `validated` with the same keys and values: the same canonical JSON.
  const canonical =
    canonicalArguments !== undefined && tool.definition.boundParameters === undefined
      ? canonicalArguments
      : canonicalJson(args);
  const shown = redact(args, tool.definition.sensitive ?? []) as Record<string, unknown>;
  return new BoundToolCall(head, tool, args, canonical, shown, context, scopedHistory);
}

/** A bound call whose `argumentsHash` is taken on first read, of the arguments as they were bound. */
class BoundToolCall implements GatedCall {
  readonly step: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly startedAt: number;
  readonly tool: RegisteredTool;
  readonly args: Record<string, unknown>;
  readonly shownArguments: Record<string, unknown>;
  readonly context: ToolContext;
  readonly #history: ScopedCallHistory;
  decision: AuditDecision = 'allowed';
  rule: string | undefined = undefined;
  approver: string | undefined = undefined;
  /** `canonicalJson(args)` as bound, until the hash is taken. */
  #canonical: string;
  #hash: string | undefined = undefined;

  constructor(
    head: ToolCallHead,
    tool: RegisteredTool,
    args: Record<string, unknown>,
    canonical: string,
    shownArguments: Record<string, unknown>,
    context: ToolContext,
    history: ScopedCallHistory,
  ) {
    this.step = head.step;
    this.toolCallId = head.toolCallId;
    this.toolName = head.toolName;
    this.startedAt = head.startedAt;
    this.tool = tool;
    this.args = args;
    this.#canonical = canonical;
    this.shownArguments = shownArguments;
    this.context = context;
    this.#history = history;
  }

  releaseHistory(): void {
    this.#history.release();
  }

  get argumentsHash(): string {
    if (this.#hash === undefined) {
      this.#hash = sha256Hex(this.#canonical);
      this.#canonical = '';
    }
    return this.#hash;
  }
}
