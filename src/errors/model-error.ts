import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.model';
const symbol = Symbol.for(marker);

export type ModelErrorKind =
  | 'network'
  | 'timeout'
  | 'rate_limited'
  | 'server'
  | 'request'
  | 'authentication'
  | 'response';

/**
 * A model call failed. `kind` says which failure class it is, so a retry
 * policy can decide; the message names the endpoint and model, never the key.
 *
 * @example
 * throw new ModelError({ kind: 'authentication', status: 401, message: 'the endpoint refused the API key (401) at http://localhost:8080/v1, model gpt-4o-mini' });
 */
export class ModelError extends ArbiterError {
  readonly code = 'model_call_failed' as const;
  readonly [symbol] = true;
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  /** The endpoint's base URL, without user info, query or fragment, when an HTTP model failed. */
  readonly endpoint: string | undefined;
  /** The model id that was called, when known. */
  readonly model: string | undefined;

  constructor({
    kind,
    message,
    status,
    retryAfterMs,
    endpoint,
    model,
    cause,
  }: {
    kind: ModelErrorKind;
    message: string;
    status?: number | undefined;
    retryAfterMs?: number | undefined;
    endpoint?: string | undefined;
    model?: string | undefined;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.kind = kind;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.endpoint = endpoint;
    this.model = model;
  }

  static override isInstance(error: unknown): error is ModelError {
    return ArbiterError.hasMarker(error, marker);
  }
}
