import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { StopReason } from '../core/stop-reason.js';
import type { ModelErrorKind } from '../errors/model-error.js';
import type { ModelDecision } from '../models/model-decision.js';

/** One decision a resilient model took during the failed call, without any text from the endpoint. */
export type ModelCallDecision = Pick<
  ModelDecision,
  'kind' | 'model' | 'attempt' | 'delayMs' | 'errorKind' | 'status' | 'reason' | 'nextModel'
>;

/** What is known about a model call that failed: never the API key, never the endpoint's own text about it. */
export interface ModelCallFailure {
  /** The model that was called last (a fallback, when the primary was given up on). */
  readonly model: string;
  /** The endpoint's base URL without user info, query or fragment, when the model is an HTTP client. */
  readonly endpoint: string | undefined;
  readonly kind: ModelErrorKind | undefined;
  /** The HTTP status of the last try, when the endpoint sent one. */
  readonly status: number | undefined;
  /** Tries, over all models of the call. */
  readonly attempts: number;
  /** Every retry, wait, fallback and the final give-up, in order (empty for a model that decides none). */
  readonly decisions: readonly ModelCallDecision[];
}

/** Why a run ended with `run:error`, as the server keeps it (column `failure` of `server_runs`). */
export interface RunFailure {
  /** The `run:error` code: `model_call_failed`, `infrastructure_failure`, `store_busy`, … */
  readonly code: string;
  /** The error's message; a model error's names the endpoint and model, never the key. */
  readonly message: string | undefined;
  readonly at: number;
  /** Set when the run failed because a model call did. */
  readonly modelCall: ModelCallFailure | undefined;
}

/** Where a run stands: `running`, or the reason its latest stretch stopped. */
export type ServerRunStatus = 'running' | StopReason;

/** What the server needs to know about a run beyond the session: whose it is, its language, where it stands. */
export interface ServerRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly tenantId: string;
  /** The session owner's principal; a resumed run acts for them, never for the approver. */
  readonly principal: Principal;
  readonly locale: Locale;
  readonly status: ServerRunStatus;
  /** How many messages the session held before this run's user message. */
  readonly messageOffset: number;
  readonly startedAt: number;
  readonly updatedAt: number;
  /** Why the run's latest stretch ended with `run:error`; undefined otherwise. */
  readonly failure: RunFailure | undefined;
}

/** A session marked as in the middle of a run that has no server run: left so by a server before this one. */
export interface OrphanedRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly tenantId: string;
  readonly userId: string;
  /** Where the run's messages begin in the session. */
  readonly messageOffset: number;
  /** The language the session recorded when the run began, if it did. */
  readonly locale: Locale | undefined;
}

/** A row of `server_runs` as both backends read it. */
export interface ServerRunRow {
  run_id: string;
  session_id: string;
  tenant_id: string;
  principal: string;
  locale: Locale;
  status: ServerRunStatus;
  message_offset: number;
  started_at: number;
  updated_at: number;
  failure: string | null;
}

/**
 * A stored row as the run it records.
 *
 * @example
 * const runs = rows.map(toServerRun);
 */
export function toServerRun(row: ServerRunRow): ServerRun {
  return {
    runId: row.run_id,
    sessionId: row.session_id,
    tenantId: row.tenant_id,
    principal: JSON.parse(row.principal) as Principal,
    locale: row.locale,
    status: row.status,
    messageOffset: row.message_offset,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    failure: row.failure === null ? undefined : (JSON.parse(row.failure) as RunFailure),
  };
}

/** What the server knows of a run when it records it: everything but its times, status and failure. */
export type NewServerRun = Omit<ServerRun, 'startedAt' | 'updatedAt' | 'status' | 'failure'>;

/**
 * The run `insert` records: running, started and updated now, without a failure.
 *
 * @example
 * const recorded = recordedServerRun(run, Date.now());
 */
export function recordedServerRun(run: NewServerRun, now: number): ServerRun {
  return { ...run, status: 'running', startedAt: now, updatedAt: now, failure: undefined };
}

/**
 * The failure a status keeps: only `error` has one; every other status clears it.
 *
 * @example
 * keptFailure('completed', failure); // undefined
 */
export function keptFailure(status: ServerRunStatus, failure: RunFailure | undefined): RunFailure | undefined {
  return status === 'error' ? failure : undefined;
}

/**
 * A failure as the `failure` column stores it (JSON, or null for none).
 *
 * @example
 * failureColumn(keptFailure(status, failure));
 */
export function failureColumn(failure: RunFailure | undefined): string | null {
  return failure === undefined ? null : JSON.stringify(failure);
}
