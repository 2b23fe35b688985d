import type { Principal } from '../core/principal.js';
import type { RunEmitter } from '../events/event-bus.js';
import type { RegisteredTool } from '../tools/tool-registry.js';
import type { ToolContext } from '../tools/tool-types.js';
import type { ApprovalBroker } from './approval-broker.js';
import type { AuditDecision, AuditLog } from './audit-log.js';
import type { GateTexts } from './gate-texts.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { ToolGate } from './tool-gate.js';

/**
 * What the gate's steps need from their run, built once per run (the loop's
 * `RunRuntime` is one): where decisions come from, and where their events
 * and audit entries go.
 *
 * @example
 * const runtime: GateRuntime = { runId, sessionId, principal, gate, approvals, idempotency, audit, emitter, signal, gateTexts: gateTexts('en') };
 */
export interface GateRuntime {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly principal: Principal | undefined;
  readonly gate: ToolGate;
  readonly approvals: ApprovalBroker;
  readonly idempotency: IdempotencyStore | undefined;
  /** Where every call is recorded. */
  readonly audit: AuditLog | undefined;
  readonly emitter: RunEmitter;
  readonly signal: AbortSignal;
  /** The gate's sentences in the run's language. */
  readonly gateTexts: GateTexts;
  /**
   * For a resumed run: whether its event log already announced this
   * approval (`approval:required`). Absent for a new run, whose approvals
   * are announced when they are created.
   */
  readonly wasAnnounced?: ((approvalId: string) => boolean) | undefined;
  /**
   * The untrusted sources whose content the conversation holds (see
   * `ToolDefinition.untrustedOutput`); while any, egress calls wait for a
   * person (`guardEgress`). Absent: none.
   */
  readonly untrustedSources?: ReadonlySet<string>;
}

/**
 * One tool call as its report names it, from the moment the model proposed
 * it: enough to answer it, whether or not it ever reached the gate.
 *
 * @example
 * const head: ToolCallHead = { step: 1, toolCallId: 'call_1', toolName: 'query_order', startedAt: performance.now() };
 */
export interface ToolCallHead {
  readonly step: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /** `performance.now()` when the call was proposed: every `durationMs` counts from here. */
  readonly startedAt: number;
}

/**
 * A validated call on its way through the gate, built once per call: the
 * tool, its arguments with the principal's parameters bound (hashed once,
 * redacted once for people to read), the context it runs in, and how the
 * gate let it through so far (`decision`, `rule`, `approver`, written by the
 * steps that decide and read by the audit).
 *
 * @example
 * const verdict = await checkGate(runtime, call);
 * if (verdict.decision === 'deny') await refuseDeniedCall(runtime, call, verdict);
 */
export interface GatedCall extends ToolCallHead {
  readonly tool: RegisteredTool;
  /** The validated arguments with every bound parameter set from the principal. */
  readonly args: Record<string, unknown>;
  /** sha256 of the canonical JSON of `args`. */
  readonly argumentsHash: string;
  /** `args` with the tool's sensitive fields redacted: what approvers and the audit log see. */
  readonly shownArguments: Record<string, unknown>;
  readonly context: ToolContext;
  /** Lets the principal's next history-reading call go ahead (see `createCallHistory`). */
  readonly releaseHistory: () => void;
  /** How the gate let the call through (or did not). */
  decision: AuditDecision;
  /** The rule behind `decision`, if one decided. */
  rule: string | undefined;
  /** Who approved the call, if a person did. */
  approver: string | undefined;
}
