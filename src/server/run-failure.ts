import type { Principal } from '../core/principal.js';
import type { ModelErrorKind } from '../errors/model-error.js';
import type { ModelCallDecision, RunFailure } from '../store/server-run.js';
import { approverRole } from './server-env.js';

export type { ModelCallDecision, ModelCallFailure, RunFailure } from '../store/server-run.js';

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
