import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { StopReason } from '../core/stop-reason.js';
import type { ToolErrorStage } from '../events/agent-event.js';
import type { GateRule } from '../gate/tier-gate.js';
import type { RunLimits } from '../loop/run-agent.js';
import type { Script } from '../models/script.js';
import type { GateOutcome } from '../observe/run-trace.js';
import type { CaseApprover } from './case-approvals.js';
import type { ErrorStyle } from './error-describer.js';

/** Which tools a case mounts: every tool of the groups plus the tools named. Both absent: all tools. */
export interface ToolSelection {
  readonly groups?: readonly string[];
  readonly names?: readonly string[];
}

/**
 * The gate of a case: arbiter's tier gate (`createTierGate`) with the
 * toolkit's own rules plus these, and how the person behind it answers.
 */
export interface CaseGateSpec {
  /** Added to the toolkit's rules; configuration can only tighten (deny, or send to a person). */
  readonly rules?: readonly GateRule[];
  /** Default `none`: nobody can approve, so approvals are denied. */
  readonly approver?: CaseApprover;
}

/** The scripted model with its script, or the endpoint configured by `ARBITER_*` (see `readModelConfig`). */
export type CaseModel = { readonly script: Script } | 'configured';

/** Checks on a text: every `contains` and `matches` must hold, no `notContains` or `notMatches` may. */
export interface TextChecks {
  readonly contains?: readonly string[];
  readonly notContains?: readonly string[];
  /** Regular expressions, case-insensitive. */
  readonly matches?: readonly string[];
  readonly notMatches?: readonly string[];
}

/** At least one failed call matches every field given. */
export interface ErrorExpectation {
  readonly tool: string;
  readonly stage?: ToolErrorStage;
  readonly code?: string;
  readonly retryable?: boolean;
  /** Substrings of the tool message the model got for that call. */
  readonly messageContains?: readonly string[];
}

/**
 * What must be true after a case ran. Every field is optional; each given
 * one is checked, and a case passes when all hold.
 */
export interface CaseExpectations {
  /** The last run's stop reason, or one of several. */
  readonly stopReason?: StopReason | readonly StopReason[];
  readonly calls?: {
    /** Tools the model proposed at least once. */
    readonly made?: readonly string[];
    readonly notMade?: readonly string[];
    /** Tools whose `execute` ran at least once. */
    readonly executed?: readonly string[];
    readonly notExecuted?: readonly string[];
  };
  /** For each entry, some call of the tool was proposed with at least these argument values. */
  readonly arguments?: readonly { readonly tool: string; readonly includes: Readonly<Record<string, unknown>> }[];
  readonly errors?: readonly ErrorExpectation[];
  /**
   * For each entry, some call of the tool got this gate decision (and, with
   * `reasonContains`, waited for a person with an approval reason holding
   * each of these substrings).
   */
  readonly gate?: readonly {
    readonly tool: string;
    readonly decision: GateOutcome;
    readonly reasonContains?: readonly string[];
  }[];
  /** Checks on the final answer (the last assistant text). */
  readonly answer?: TextChecks;
  /** Model calls over all turns. */
  readonly modelCalls?: { readonly min?: number; readonly max?: number };
  /** Facts the toolkit reports after the run (e.g. `{ "refunds": 2 }`), compared as JSON. */
  readonly state?: Readonly<Record<string, unknown>>;
  /**
   * The case runs with an audit log (SQLite, in memory): each tool named
   * has a row, every row is in the tenant's hash chain, and the chain
   * verifies (`verifyChain`).
   */
  readonly audit?: { readonly tools: readonly string[] };
  /**
   * Whether model-facing texts (tool messages and answers) may contain SQL,
   * file paths, stack traces or internal error names. Default false: any is a failure.
   */
  readonly allowInternalDetails?: boolean;
}

/** One fact stored in a case's long-term memory before its first turn. */
export interface CaseFact {
  /** Default: the case's principal's. */
  readonly tenantId?: string;
  readonly userId?: string;
  readonly key: string;
  readonly value: string;
  /** Who said it. Default `user` (trusted). */
  readonly from?: 'user' | 'tool' | 'model';
  /** How long ago it was saved. Default 0. */
  readonly savedDaysAgo?: number;
  /** How long it stays valid from when it was saved. Default: no expiry. */
  readonly validDays?: number;
}

/**
 * Long-term memory for a case: `save_fact` and `recall_facts` mounted on an
 * empty memory (plus `facts`), the principal's recalled facts pinned into
 * each turn's context, and with `sessionPerTurn` each user message a new
 * conversation, so only memory carries over (a later session).
 */
export interface CaseMemory {
  readonly facts?: readonly CaseFact[];
  /** Default false: the turns continue one conversation. */
  readonly sessionPerTurn?: boolean;
  /** Default true: before each turn, facts recalled with the user's message are pinned in the context. */
  readonly pin?: boolean;
}

/** One evaluation case, after the suite's defaults were applied and its script was read. */
export interface EvalCase {
  readonly id: string;
  /** What the case covers, e.g. `single-tool`, `prompt-injection`; rows of the report are grouped by it. */
  readonly category: string;
  readonly description: string | undefined;
  /** The user's messages, one per turn; each turn is a run continuing the conversation. */
  readonly input: readonly string[];
  readonly tools: ToolSelection;
  readonly model: CaseModel;
  readonly principal: Principal | undefined;
  readonly gate: CaseGateSpec | undefined;
  readonly limits: RunLimits | undefined;
  readonly locale: Locale;
  readonly errorStyle: ErrorStyle;
  /** Handed to the suite's toolkit, e.g. `{ "repository": "always_not_found" }`. */
  readonly toolkitOptions: Readonly<Record<string, unknown>>;
  /** Long-term memory for the case; undefined: none. */
  readonly memory?: CaseMemory | undefined;
  readonly expect: CaseExpectations;
  /** The file the case came from. */
  readonly file: string;
}
