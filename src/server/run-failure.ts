import type { Principal } from '../core/principal.js';
import type { ModelErrorKind } from '../errors/model-error.js';
import type { ModelDecision } from '../models/model-decision.js';
import { approverRole } from './server-env.js';

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

/** The part of a failure every viewer of the run may see: codes and numbers. */
export interface VisibleFailure {
  readonly code: string;
  readonly kind?: ModelErrorKind;
  readonly status?: number;
  readonly attempts?: number;
  /** Why the model call was given up on (`not_retryable`, `attempts_exhausted`, …). */
  readonly reason?: string;
  /** Approvers only: the message, the model, the endpoint and the decisions. */
  readonly message?: string;
  readonly model?: string;
  readonly endpoint?: string;
  readonly decisions?: readonly ModelCallDecision[];
}

/**
 * A run's failure as `principal` may see it in `GET /v1/runs/:id` and
 * `GET /v1/sessions/:id`. The session owner gets codes and numbers (the
 * error code, the model error's kind, HTTP status, tries and why they
 * stopped); an approver of the tenant (staff) also gets the error message,
 * the model, the endpoint and every retry decision. Undefined when the run
 * did not fail.
 *
 * @example
 * visibleFailure({ failure: run.failure, principal }); // { code: 'model_call_failed', kind: 'authentication', status: 401, attempts: 1, reason: 'not_retryable' }
 */
export function visibleFailure({
  failure,
  principal,
}: {
  failure: RunFailure | undefined;
  principal: Principal;
}): VisibleFailure | undefined {
  if (failure === undefined) return undefined;
  const call = failure.modelCall;
  const reason = call?.decisions.findLast((decision) => decision.reason !== undefined)?.reason;
  const visible: VisibleFailure = {
    code: failure.code,
    ...(call?.kind === undefined ? {} : { kind: call.kind }),
    ...(call?.status === undefined ? {} : { status: call.status }),
    ...(call === undefined ? {} : { attempts: call.attempts }),
    ...(reason === undefined ? {} : { reason }),
  };
  if (!principal.roles.includes(approverRole)) return visible;
  return {
    ...visible,
    ...(failure.message === undefined ? {} : { message: failure.message }),
    ...(call === undefined ? {} : { model: call.model, decisions: call.decisions }),
    ...(call?.endpoint === undefined ? {} : { endpoint: call.endpoint }),
  };
}
