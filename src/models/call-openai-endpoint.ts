import OpenAI, { type ClientOptions } from 'openai';
import { type EndpointFailures, isJsonResponse } from './openai-endpoint-failures.js';
import { readModelStream } from './read-model-stream.js';

/**
 * The SDK client both OpenAI clients use: no SDK retries (`ResilientModel`
 * retries), the call's own time limit, and nothing of this process's
 * environment sent to a third-party endpoint.
 *
 * @example
 * const client = createOpenAiClient({ baseUrl: 'https://api.openai.com/v1', apiKey, timeoutMs: 60_000 });
 */
export function createOpenAiClient({
  baseUrl,
  apiKey,
  timeoutMs,
  fetch,
}: {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  fetch: ClientOptions['fetch'] | undefined;
}): OpenAI {
  return new OpenAI({
    baseURL: baseUrl,
    apiKey,
    maxRetries: 0,
    timeout: timeoutMs,
    // Never send the OPENAI_ORG_ID / OPENAI_PROJECT_ID of this process to a third-party endpoint.
    organization: null,
    project: null,
    // The SDK would otherwise log unparsable stream data to the console.
    logLevel: 'off',
    ...(fetch === undefined ? {} : { fetch }),
  });
}

/**
 * One streamed request to an OpenAI-compatible endpoint, read to its end:
 * stopped by the caller's `signal` or by `timeoutMs` without a byte
 * (refreshed on every item), each SDK failure turned into a `ModelError`
 * by `failures`. The stream's items go through `pushItem`; a server that
 * ignores `stream: true` and answers with one JSON body goes through
 * `pushWhole`; either returns the text it added, for `onTextDelta`.
 * `finish` builds the answer once the stream ended and was not stopped.
 *
 * @example
 * return callOpenAiEndpoint({ request: (stop) => client.chat.completions.create(body, { signal: stop }).withResponse(), pushItem: (chunk) => assembler.push(chunk), pushWhole, finish: () => assembler.finish(), signal, timeoutMs, failures, onTextDelta });
 */
export async function callOpenAiEndpoint<Answer>({
  request,
  pushItem,
  pushWhole,
  finish,
  signal,
  timeoutMs,
  failures,
  onTextDelta,
}: {
  request: (stop: AbortSignal) => Promise<{ data: AsyncIterable<unknown>; response: Response }>;
  pushItem: (item: unknown) => string;
  pushWhole: (body: unknown) => string;
  finish: () => Answer;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  failures: EndpointFailures;
  onTextDelta: ((text: string) => void) | undefined;
}): Promise<Answer> {
  signal?.throwIfAborted();
  // One controller stops the SDK for either cause; which one fired is read from the sources.
  const stop = new AbortController();
  const idle = new AbortController();
  const idleTimer = setTimeout(() => {
    idle.abort();
    stop.abort();
  }, timeoutMs);
  const onCallerAbort = () => stop.abort();
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const guard = async <T>(operation: Promise<T>): Promise<T> => {
    try {
      return await operation;
    } catch (error) {
      throw failures.toFailure(error, { signal, idle: idle.signal });
    }
  };

  try {
    const { data: stream, response } = await guard(request(stop.signal));
    idleTimer.refresh();
    if (isJsonResponse(response)) {
      // Some compatible servers ignore `stream: true` and answer with one JSON body.
      const text = pushWhole(await guard(response.json()));
      if (text !== '') onTextDelta?.(text);
    } else {
      await readModelStream({
        items: stream[Symbol.asyncIterator](),
        push: pushItem,
        guard,
        idleTimer,
        stopped: stop.signal,
        onTextDelta,
      });
    }
    // The SDK ends a stream quietly when its signal aborts, so check ours.
    failures.throwIfStopped({ signal, idle: idle.signal });
    return finish();
  } finally {
    clearTimeout(idleTimer);
    signal?.removeEventListener('abort', onCallerAbort);
  }
}
