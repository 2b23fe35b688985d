import { ModelError } from '../errors/model-error.js';
import type { Model, ModelRequest, ModelResponse } from '../models/model.js';
import type { ModelDecision } from '../models/model-decision.js';
import type { ModelCallDecision, ModelCallFailure } from './run-failure.js';

/** A failed model call as the watcher reports it: the facts, and the error itself. */
export interface WatchedFailure extends ModelCallFailure {
  readonly error: unknown;
  /** The error's message: a `ModelError`'s names endpoint and model, never the key. */
  readonly message: string;
  /** The error's code (`model_call_failed` for a `ModelError`). */
  readonly code: string;
}

/**
 * Wraps a model so every call that fails (other than by the caller's
 * abort) is reported once, after the model has given up, with what is
 * known about it: the model and endpoint, the error's kind and HTTP
 * status, how many tries were made and each retry decision a resilient
 * model took on the way (collected from `onDecision`, which still reaches
 * the caller). The error then reaches the caller unchanged.
 *
 * @example
 * const watched = watchModelCalls({ model, onFailure: (failure) => logger({ level: 'error', event: 'model_call_failed', ...failure }) });
 */
export function watchModelCalls({
  model,
  onFailure,
}: {
  model: Model;
  onFailure: (failure: WatchedFailure) => void;
}): Model {
  return {
    name: model.name,
    ...(model.strictTools === undefined ? {} : { strictTools: model.strictTools }),
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const decisions: ModelCallDecision[] = [];
      const onDecision = (decision: ModelDecision) => {
        decisions.push(summarize(decision));
        request.onDecision?.(decision);
      };
      try {
        return await model.generate({ ...request, onDecision });
      } catch (error) {
        if (!request.signal?.aborted) {
          try {
            onFailure(describeFailure({ error, model, decisions }));
          } catch {
            // Reporting is a side channel: it must not change the call's outcome.
          }
        }
        throw error;
      }
    },
  };
}

function describeFailure({
  error,
  model,
  decisions,
}: {
  error: unknown;
  model: Model;
  decisions: readonly ModelCallDecision[];
}): WatchedFailure {
  const modelError = ModelError.isInstance(error) ? error : undefined;
  const last = decisions.at(-1);
  return {
    error,
    code: modelError?.code ?? codeOf(error),
    message: error instanceof Error ? error.message : String(error),
    model: modelError?.model ?? last?.model ?? model.name,
    endpoint: modelError?.endpoint,
    kind: modelError?.kind,
    status: modelError?.status,
    // A model that decides nothing (no retries) made one try.
    attempts: Math.max(1, decisions.filter((decision) => decision.kind !== 'expand_output').length),
    decisions,
  };
}

function summarize(decision: ModelDecision): ModelCallDecision {
  const { kind, model, attempt, delayMs, errorKind, status, reason, nextModel } = decision;
  return { kind, model, attempt, delayMs, errorKind, status, reason, nextModel };
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : 'internal_error';
}
