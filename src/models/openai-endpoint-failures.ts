import { APIConnectionError, APIConnectionTimeoutError, APIError, OpenAIError } from 'openai';
import { ModelError, type ModelErrorKind } from '../errors/model-error.js';
import { connectionDetail } from './connection-detail.js';
import { describeEndpoint } from './describe-endpoint.js';
import { parseRetryAfter } from './parse-retry-after.js';

export { parseRetryAfter } from './parse-retry-after.js';

const providerDetailLimit = 300;

/**
 * How an OpenAI SDK call's failure becomes a `ModelError`, shared by the
 * Chat Completions and Responses clients: `network`, `timeout`,
 * `rate_limited` (with `retryAfterMs`), `server`, `authentication`,
 * `request`, `response`; messages name the endpoint and model, never the
 * API key, a bearer token or a URL's user info or query. An abort of the
 * caller's signal is rethrown as the signal's reason, never as a `ModelError`.
 *
 * @example
 * const failures = new EndpointFailures({ baseUrl, apiKey, model, timeoutMs: 60_000 });
 * throw failures.toFailure(error, { signal, idle: idle.signal });
 */
export class EndpointFailures {
  readonly #endpoint: string;
  readonly #model: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;

  constructor({
    baseUrl,
    apiKey,
    model,
    timeoutMs,
  }: { baseUrl: string; apiKey: string; model: string; timeoutMs: number }) {
    this.#endpoint = describeEndpoint(baseUrl);
    this.#model = model;
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
  }

  throwIfStopped({ signal, idle }: { signal: AbortSignal | undefined; idle: AbortSignal }): void {
    signal?.throwIfAborted();
    if (idle.aborted) throw this.error('timeout', `the endpoint did not answer within ${this.#timeoutMs} ms`);
  }

  toFailure(error: unknown, signals: { signal: AbortSignal | undefined; idle: AbortSignal }): unknown {
    try {
      this.throwIfStopped(signals);
    } catch (stopped) {
      return stopped;
    }
    if (ModelError.isInstance(error)) return error;

    if (error instanceof APIConnectionTimeoutError) {
      return this.error('timeout', `the endpoint did not answer within ${this.#timeoutMs} ms`, { cause: error });
    }
    if (error instanceof APIConnectionError) {
      return this.error('network', 'could not reach the endpoint', { detail: connectionDetail(error), cause: error });
    }
    if (error instanceof APIError) {
      const status: number | undefined = error.status;
      const retryAfterMs = error.headers === undefined ? undefined : parseRetryAfter({ headers: error.headers });
      const [kind, summary] = classifyStatus(status, error.code);
      return this.error(kind, retryAfterMs === undefined ? summary : `${summary}, retry after ${retryAfterMs} ms`, {
        // Whatever an endpoint says about a refused key may quote it: say nothing more.
        detail: kind === 'authentication' ? undefined : providerMessage(error),
        status,
        retryAfterMs,
        // No `cause`: the SDK error holds the endpoint's raw body and headers, which may quote the key.
      });
    }
    if (error instanceof SyntaxError || error instanceof OpenAIError) {
      // No `cause`: a parse error quotes the raw stream text.
      return this.error('response', 'the endpoint sent a malformed response', { detail: error.message });
    }
    // Reading the body failed underneath the SDK: the connection dropped mid-stream.
    return this.error('network', 'the connection broke mid-response', {
      detail: connectionDetail(error),
      cause: error,
    });
  }

  /** `<summary> at <endpoint>, model <model>[: <detail>]`, with secrets removed. */
  error(
    kind: ModelErrorKind,
    summary: string,
    options: {
      detail?: string | undefined;
      status?: number | undefined;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    } = {},
  ): ModelError {
    const { detail, status, retryAfterMs, cause } = options;
    const message = `${summary} at ${this.#endpoint}, model ${this.#model}${this.#detail(detail)}`;
    return new ModelError({
      kind,
      message: this.#redact(message),
      status,
      retryAfterMs,
      endpoint: this.#redact(this.#endpoint),
      model: this.#model,
      cause,
    });
  }

  #detail(text: string | undefined): string {
    if (text === undefined || text.trim() === '') return '';
    const trimmed = text.trim();
    return `: ${trimmed.length > providerDetailLimit ? `${trimmed.slice(0, providerDetailLimit)}…` : trimmed}`;
  }

  #redact(text: string): string {
    const redacted = text
      .replace(/\b(?:bearer|basic)\s+[^\s"'),;\]}]+/gi, '[redacted]')
      .replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (url) => describeEndpoint(url));
    // A placeholder key such as `ollama` is no secret, and replacing it would garble messages.
    return this.#apiKey.length < 8 ? redacted : redacted.split(this.#apiKey).join('[redacted]');
  }
}

function classifyStatus(status: number | undefined, code: string | null | undefined): [ModelErrorKind, string] {
  if (status === undefined) return ['server', 'the endpoint reported an error in the stream'];
  // Out of credit is a 429 too, but waiting will not help: it is the account's configuration.
  if (status === 429 && code === 'insufficient_quota') {
    return ['request', 'the endpoint says the account has no quota left (429 insufficient_quota)'];
  }
  if (status === 401) return ['authentication', 'the endpoint refused the API key (401)'];
  if (status === 403) return ['authentication', 'the endpoint denied access (403)'];
  if (status === 408) return ['timeout', 'the endpoint timed out (408)'];
  if (status === 429) return ['rate_limited', 'the endpoint rate-limited the request (429)'];
  if (status === 409 || status >= 500) return ['server', `the endpoint failed (${status})`];
  return ['request', `the endpoint rejected the request (${status})`];
}

/** The endpoint's own explanation, without the SDK's status prefix. */
function providerMessage(error: APIError): string | undefined {
  const body: unknown = error.error;
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
    return body.message;
  }
  const prefix = `${error.status} `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

/**
 * Throws a `ModelError` of kind `request` when the base URL cannot be used
 * as is: not http(s), or carrying user info, a query or a fragment.
 *
 * @example
 * assertUsableBaseUrl('https://api.openai.com/v1'); // fine
 */
export function assertUsableBaseUrl(baseUrl: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ModelError({ kind: 'request', message: 'the model base URL is not a valid URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelError({ kind: 'request', message: `the model base URL must be http(s), not ${url.protocol}` });
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    // The SDK appends paths to the base URL as text, so a query would swallow them.
    throw new ModelError({
      kind: 'request',
      message: `the model base URL ${describeEndpoint(baseUrl)} must not carry user info, a query or a fragment; pass the key as apiKey`,
    });
  }
}

/**
 * True when the endpoint answered with one JSON body instead of a stream
 * (some compatible servers ignore `stream: true`).
 *
 * @example
 * if (isJsonResponse(response)) assembler.pushResponse(await response.json());
 */
export function isJsonResponse(response: Response): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(response.headers.get('content-type') ?? '');
}
