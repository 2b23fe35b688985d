import { ModelError, type ModelErrorKind } from '../errors/model-error.js';
import { connectionDetail } from './connection-detail.js';
import { describeEndpoint } from './describe-endpoint.js';

/**
 * What the start-up check found:
 *
 * - `ok`: the endpoint answered, accepted the key and lists every model;
 * - `unverified`: it answered, but its model list could not be read (no
 *   `/models` route, a 5xx, a body that is not a list): calls may still work;
 * - `failed`: the configuration cannot work (unreachable, too slow, key
 *   refused, model not listed); `error` says which, naming endpoint and
 *   model, never the key.
 */
export type ModelEndpointCheck =
  | { readonly status: 'ok'; readonly message: string }
  | { readonly status: 'unverified'; readonly message: string }
  | { readonly status: 'failed'; readonly message: string; readonly error: ModelError };

/**
 * A cheap check of an OpenAI-compatible endpoint before anything depends on
 * it: one `GET {baseUrl}/models` with the key, within `timeoutMs`. Catches
 * an unreachable host or closed port, a refused key (401/403) and a model id
 * the endpoint does not list, each as a line that names the URL and the
 * model (and the variable to fix), never the key nor what the endpoint said
 * about it. Never throws.
 *
 * @example
 * const check = await checkModelEndpoint({ baseUrl, apiKey, models: ['gpt-4o'] });
 * if (check.status === 'failed') throw check.error;
 */
export async function checkModelEndpoint({
  baseUrl,
  apiKey,
  models,
  timeoutMs = 5000,
  fetch = globalThis.fetch,
}: {
  baseUrl: string;
  apiKey: string;
  /** The model ids that must be listed (the primary, and a fallback). */
  models: readonly string[];
  /** Default 5000. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}): Promise<ModelEndpointCheck> {
  const endpoint = describeEndpoint(baseUrl);
  const named = models.join(', ');
  const where = `model endpoint ${endpoint} (model ${named})`;
  const fail = (kind: ModelErrorKind, message: string, status?: number, cause?: unknown): ModelEndpointCheck => ({
    status: 'failed',
    message,
    error: new ModelError({ kind, message, status, endpoint, model: models[0], cause }),
  });

  let response: Response;
  try {
    response = await fetch(`${endpoint}/models`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return fail('timeout', `${where}: no answer to GET /models within ${timeoutMs} ms; check ARBITER_BASE_URL`);
    }
    return fail(
      'network',
      `${where} is unreachable (${networkCause(error)}); check ARBITER_BASE_URL`,
      undefined,
      error,
    );
  }
  // The body of a refusal may quote the key: it is never read, let alone shown.
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return fail(
      'authentication',
      `${where} refused the API key (${response.status}); check ARBITER_API_KEY`,
      response.status,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    return {
      status: 'unverified',
      message: `${where}: GET /models answered ${response.status}, so the model could not be checked`,
    };
  }
  const listed = await readModelIds(response);
  if (listed === undefined) {
    return {
      status: 'unverified',
      message: `${where}: GET /models did not answer a model list, so the model could not be checked`,
    };
  }
  const missing = models.filter((model) => !listed.includes(model));
  if (missing.length > 0) {
    const variable = missing.includes(models[0] ?? '') ? 'ARBITER_MODEL' : 'ARBITER_FALLBACK_MODEL';
    const examples = listed.slice(0, 5).join(', ');
    return fail(
      'request',
      `${where}: the endpoint does not list ${missing.map((model) => `"${model}"`).join(', ')} ` +
        `(it lists ${listed.length}${listed.length === 0 ? '' : `, e.g. ${examples}`}); check ${variable}`,
      404,
    );
  }
  return { status: 'ok', message: `${where}: reachable, key accepted, model listed` };
}

async function readModelIds(response: Response): Promise<string[] | undefined> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return undefined;
  }
  const data = typeof body === 'object' && body !== null && 'data' in body ? body.data : undefined;
  if (!Array.isArray(data)) return undefined;
  return data.flatMap((entry: unknown) =>
    typeof entry === 'object' && entry !== null && 'id' in entry && typeof entry.id === 'string' ? [entry.id] : [],
  );
}

/**
 * The system's reason a connection failed (`ECONNREFUSED`, `ENOTFOUND`, undici's `bad port`…), not the
 * whole error: the innermost cause's code, else its message. fetch's own "fetch failed" says nothing.
 */
function networkCause(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return connectionDetail(cause) ?? (error instanceof Error ? error.message : 'connection failed');
}
