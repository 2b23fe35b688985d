import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.http';
const symbol = Symbol.for(marker);

/** The error statuses the server answers with. */
export type HttpErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504;

/**
 * A request the server answers with an error status. `reason` is the
 * machine-readable code the client gets (`invalid_json`, `not_found`,
 * `run_active`); `details` go into the body beside it (e.g. `activeRunId`);
 * `headers` go on the response (e.g. `Retry-After` of a 429).
 *
 * @example
 * throw new HttpError({ status: 404, reason: 'not_found', message: 'no session abc' });
 */
export class HttpError extends ArbiterError {
  readonly code = 'http_error' as const;
  readonly [symbol] = true;
  readonly status: HttpErrorStatus;
  readonly reason: string;
  readonly details: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor({
    status,
    reason,
    message,
    details = {},
    headers = {},
    cause,
  }: {
    status: HttpErrorStatus;
    reason: string;
    message: string;
    details?: Readonly<Record<string, unknown>>;
    headers?: Readonly<Record<string, string>>;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.status = status;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }

  /** The JSON body sent to the client. */
  toBody(): { error: Record<string, unknown> } {
    return { error: { code: this.reason, message: this.message, ...this.details } };
  }

  static override isInstance(error: unknown): error is HttpError {
    return ArbiterError.hasMarker(error, marker);
  }
}
