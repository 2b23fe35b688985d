import type { PinnedState } from '../context/compress-context.js';
import type { ContextManager } from '../context/context-manager.js';
import { isCallHistorySource } from '../core/call-history.js';
import type { ChatMessage } from '../core/chat-message.js';
import type { DurableSteps } from '../core/durable-steps.js';
import type { Locale } from '../core/locale.js';
import { createMemoryJournal, type RunJournal } from '../core/run-journal.js';
import { ConfigurationError } from '../errors/configuration-error.js';
import { EventBus } from '../events/event-bus.js';
import { denyAllApprovals } from '../gate/approval-broker.js';
import { gateTexts } from '../gate/gate-texts.js';
import type { GateRuntime } from '../gate/gated-call.js';
import { MemoryAuditLog } from '../gate/memory-audit-log.js';
import { allowAllGate } from '../gate/tool-gate.js';
import type { Model } from '../models/model.js';
import type { PriceTable } from '../models/pricing.js';
import type { NullReading } from '../validation/validate-tool-call.js';
import { CallBrakes } from './call-brakes.js';
import { type DescribeToolError, describeFullError } from './describe-tool-error.js';
import { type LoopTexts, loopTexts } from './loop-texts.js';
import type { RunAgentOptions } from './run-agent.js';
import { RunControl } from './run-control.js';

/**
 * Everything one run's steps share, built once per run from its options:
 * the model and its limits, the gate, approvals, idempotency and audit, the
 * journal, the event emitter, the run's abort signal, its language and
 * texts, the brakes. Every step of the tool-call path takes it as its first
 * argument, with what is per call beside it.
 *
 * @example
 * const runtime = createRunRuntime(options, runId);
 * const batch = await runBatch(runtime, tools, calls, step);
 */
export interface RunRuntime extends GateRuntime {
  readonly options: RunAgentOptions;
  readonly model: Model;
  readonly journal: RunJournal;
  /** The durable engine's steps, when the run executes inside one; undefined on arbiter's own path. */
  readonly steps: DurableSteps | undefined;
  readonly control: RunControl;
  readonly brakes: CallBrakes;
  readonly locale: Locale;
  readonly texts: LoopTexts;
  readonly describeError: DescribeToolError;
  /** How the model's `null`s are read: `strict_mode` for a model that decodes tools strictly. */
  readonly nulls: NullReading;
  /** Default per-call time limit; a tool's own `timeoutMs` wins. */
  readonly toolTimeoutMs: number | undefined;
  /** How many `read` calls of one turn may run at once. */
  readonly maxParallelReads: number;
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly costBudget: number;
  readonly prices: PriceTable | undefined;
  readonly context: ContextManager | undefined;
  readonly pinned: PinnedState | undefined;
  /** Grows as untrusted content comes in (results and errors of tools declaring `untrustedOutput`, errors marked `untrusted`), so later egress calls of the run wait for a person. */
  readonly untrustedSources: Set<string>;
}

/**
 * Builds the run's runtime from the caller's options, defaults filled:
 * deny-all approvals, an allow-all gate, an in-memory journal, the history
 * read from the audit log when it can answer, else from this run's own
 * calls. Throws `ConfigurationError` for a cost budget without a price table.
 *
 * @example
 * const runtime = createRunRuntime(options, options.runId ?? timeOrderedId());
 */
export function createRunRuntime(options: RunAgentOptions, runId: string): RunRuntime {
  const { model, locale = 'en' } = options;
  const limits = options.limits ?? {};
  const costBudget = limits.costBudget ?? Number.POSITIVE_INFINITY;
  if (Number.isFinite(costBudget) && options.prices === undefined) {
    throw new ConfigurationError({
      setting: 'limits.costBudget',
      message: 'limits.costBudget needs a price table (the prices option)',
    });
  }
  const control = new RunControl({ signal: options.signal, timeLimitMs: limits.timeLimitMs });
  return {
    options,
    model,
    runId,
    sessionId: options.sessionId,
    principal: options.principal,
    gate: options.gate ?? allowAllGate,
    approvals: options.approvals ?? denyAllApprovals,
    idempotency: options.idempotency,
    audit: isCallHistorySource(options.audit) ? options.audit : new MemoryAuditLog({ forwardTo: options.audit }),
    emitter: (options.events ?? new EventBus()).forRun(runId, { startSeq: options.resume?.lastSeq ?? 0 }),
    journal: options.journal ?? createMemoryJournal(),
    steps: options.steps,
    control,
    signal: control.signal,
    brakes: new CallBrakes({
      maxIdenticalCalls: limits.maxIdenticalCalls ?? 2,
      maxConsecutiveFailures: limits.maxConsecutiveFailures ?? 2,
    }),
    locale,
    texts: loopTexts(locale),
    gateTexts: gateTexts(locale),
    // Always present (undefined when not resuming): a spread here made every later property a slow define and
    // left the runtime, which every step reads, with a map its readers loaded through the generic path.
    wasAnnounced:
      options.resume === undefined
        ? undefined
        : (approvalId: string) => options.resume?.announcedApprovals?.has(approvalId) ?? false,
    describeError: options.describeError ?? describeFullError,
    nulls: model.strictTools === true ? 'strict_mode' : 'as_sent',
    toolTimeoutMs: options.toolTimeoutMs,
    maxParallelReads: options.maxParallelReads ?? 4,
    maxSteps: limits.maxSteps ?? 10,
    tokenBudget: limits.tokenBudget ?? Number.POSITIVE_INFINITY,
    costBudget,
    prices: options.prices,
    context: options.context,
    pinned: options.pinned,
    untrustedSources: untrustedSourcesOf(options.messages),
  };
}

/** The untrusted sources a conversation already holds content from: its messages marked `untrusted` (tool results and errors, recalled facts). */
function untrustedSourcesOf(messages: readonly ChatMessage[]): Set<string> {
  const sources = new Set<string>();
  for (const message of messages)
    if ((message.role === 'tool' || message.role === 'system') && message.untrusted !== undefined)
      sources.add(message.untrusted);
  return sources;
}
