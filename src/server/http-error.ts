import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ArbiterError } from '../errors/arbiter-error.js';

const marker = Symbol.for('arbiter.error.http');

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
  readonly [marker] = true;
  readonly status: ContentfulStatusCode;
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
    status: ContentfulStatusCode;
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

  static override isInstance(value: unknown): value is HttpError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
