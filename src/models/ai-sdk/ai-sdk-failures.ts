import { ModelError, type ModelErrorKind } from '../../errors/model-error.js';
import { isRecord } from '../../util/is-record.js';
import { connectionDetail } from '../connection-detail.js';
import { describeEndpoint } from '../describe-endpoint.js';
import { parseRetryAfter } from '../parse-retry-after.js';

const detailLimit = 300;

/**
 * How an AI SDK provider's failure becomes a `ModelError` whose `kind`
 * drives `ResilientModel`: the provider's `APICallError` by status (none:
 * `network`; 401/403 `authentication`; 408 `timeout`; 429 `rate_limited`
 * with `retryAfterMs` from `retry-after`/`retry-after-ms` or Gemini's
 * `RetryInfo`; 409, 5xx and Anthropic's 529 `server`; any other 4xx
 * `request`), a missing API key `authentication`, an error event in the
 * stream by its type (`overloaded_error` `server`, `rate_limit_error`
 * `rate_limited`), an unparsable stream `response`, a broken connection
 * `network`. Errors are recognised by their AI SDK names, never by
 * `instanceof`, as the provider's copy of the spec package may not be
 * arbiter's.
 *
 * Messages name the provider, the model and the endpoint (origin and path
 * only); they never carry the request body (the conversation), headers,
 * keys or tokens, and the provider's error is never the `cause` (it holds
 * the whole request).
 *
 * @example
 * const failures = new AiSdkFailures({ provider: 'anthropic.messages', model: 'claude-sonnet-4-5' });
 * throw failures.toModelError(error);
 */
export class AiSdkFailures {
  readonly #provider: string;
  readonly #model: string;

  constructor({ provider, model }: { provider: string; model: string }) {
    this.#provider = provider;
    this.#model = model;
  }

  /** A thrown error, or the `error` of a stream's error part, as a `ModelError`. */
  toModelError(error: unknown): ModelError {
    if (ModelError.isInstance(error)) return error;
    const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : undefined;
    if (name === 'AI_APICallError' && isRecord(error)) return this.#apiCallError(error);
    if (name === 'AI_LoadAPIKeyError' || name === 'AI_LoadSettingError') {
      return this.error('authentication', 'the provider is not configured', { detail: messageOf(error) });
    }
    if (name === 'AI_JSONParseError' || name === 'AI_TypeValidationError' || error instanceof SyntaxError) {
      // Not the SDK's message: it quotes the text it could not parse.
      return this.error('response', 'the provider sent a response that could not be read');
    }
    if (isRecord(error) && typeof error['type'] === 'string' && !(error instanceof Error)) {
      return this.#streamErrorEvent(error['type'], error['message']);
    }
    return this.error('network', 'the connection broke mid-response', {
      detail: connectionDetail(error),
      cause: error,
    });
  }

  /** `<summary> at <provider>[ <endpoint>], model <model>[: <detail>]`, secrets removed. */
  error(
    kind: ModelErrorKind,
    summary: string,
    {
      detail,
      status,
      retryAfterMs,
      url,
      cause,
    }: {
      detail?: string | undefined;
      status?: number | undefined;
      retryAfterMs?: number | undefined;
      url?: string | undefined;
      cause?: unknown;
    } = {},
  ): ModelError {
    const endpoint = url === undefined ? undefined : describeEndpoint(url);
    const where = endpoint === undefined ? this.#provider : `${this.#provider} ${endpoint}`;
    const text = detail === undefined || detail.trim() === '' ? '' : `: ${clip(detail.trim())}`;
    return new ModelError({
      kind,
      message: redact(`${summary} at ${where}, model ${this.#model}${text}`),
      status,
      retryAfterMs,
      endpoint,
      model: this.#model,
      cause,
    });
  }

  #apiCallError(error: Record<string, unknown>): ModelError {
    const status = typeof error['statusCode'] === 'number' ? error['statusCode'] : undefined;
    const url = typeof error['url'] === 'string' ? error['url'] : undefined;
    if (status === undefined) {
      return this.error('network', 'could not reach the provider', { detail: connectionDetail(error['cause']), url });
    }
    if (status >= 200 && status < 300) {
      // The provider had answered; reading its stream failed (the connection dropped mid-response).
      return this.error('network', 'the connection broke mid-response', {
        detail: connectionDetail(error['cause']),
        url,
      });
    }
    const headers = isRecord(error['responseHeaders']) ? toHeaders(error['responseHeaders']) : new Headers();
    const retryAfterMs = parseRetryAfter({ headers }) ?? retryDelayInBody(error['responseBody']);
    const [kind, summary] = classifyStatus(status);
    return this.error(kind, retryAfterMs === undefined ? summary : `${summary}, retry after ${retryAfterMs} ms`, {
      // Whatever a provider says about a refused key may quote it: say nothing more.
      detail: kind === 'authentication' ? undefined : messageOf(error),
      status,
      retryAfterMs,
      url,
    });
  }

  #streamErrorEvent(type: string, message: unknown): ModelError {
    const detail = typeof message === 'string' ? message : undefined;
    if (type === 'overloaded_error')
      return this.error('server', 'the provider is overloaded (in the stream)', { detail });
    if (type === 'rate_limit_error') {
      return this.error('rate_limited', 'the provider rate-limited the request (in the stream)', { detail });
    }
    if (type === 'api_error' || type === 'timeout_error') {
      return this.error('server', `the provider reported ${type} in the stream`, { detail });
    }
    return this.error('request', `the provider reported ${type} in the stream`, { detail });
  }
}

function classifyStatus(status: number): [ModelErrorKind, string] {
  if (status === 401) return ['authentication', 'the provider refused the API key (401)'];
  if (status === 403) return ['authentication', 'the provider denied access (403)'];
  if (status === 408) return ['timeout', 'the provider timed out (408)'];
  if (status === 429) return ['rate_limited', 'the provider rate-limited the request (429)'];
  if (status === 529) return ['server', 'the provider is overloaded (529)'];
  if (status === 409 || status >= 500) return ['server', `the provider failed (${status})`];
  return ['request', `the provider rejected the request (${status})`];
}

function toHeaders(record: Record<string, unknown>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string') {
      try {
        headers.set(name, value);
      } catch {
        // A header name or value fetch would not accept: not one we read.
      }
    }
  }
  return headers;
}

/** Gemini's `RetryInfo` (`"retryDelay": "30s"`) in a 429's body, in milliseconds. */
function retryDelayInBody(body: unknown): number | undefined {
  if (typeof body !== 'string') return undefined;
  const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(body);
  return match?.[1] === undefined ? undefined : Math.ceil(Number(match[1]) * 1000);
}

function messageOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
    ? error.message
    : undefined;
}

function clip(text: string): string {
  return text.length > detailLimit ? `${text.slice(0, detailLimit)}…` : text;
}

/** Bearer tokens, `sk-…`-like keys and URLs' queries and user info out of a message. */
function redact(text: string): string {
  return text
    .replace(/\b(?:bearer|basic)\s+[^\s"'),;\]}]+/gi, '[redacted]')
    .replace(/\b(?:sk-[A-Za-z0-9_-]{12,}|AIza[A-Za-z0-9_-]{20,})/g, '[redacted]')
    .replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (url) => describeEndpoint(url));
}
