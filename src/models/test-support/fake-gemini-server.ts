import { isRecord } from '../../util/is-record.js';
import {
  type FakeProviderServer,
  type ProviderReply,
  type ProviderRequest,
  startFakeProviderServer,
} from './start-fake-provider-server.js';

/** One answer of the fake Gemini API, streamed as `streamGenerateContent?alt=sse` chunks. */
export interface GeminiTurn {
  readonly kind: 'content';
  /** A thought part (`thought: true`) with its thought signature. */
  readonly thought?: { readonly text: string; readonly signature: string };
  readonly text?: string;
  readonly textChunkSize?: number;
  /** Function calls in one chunk; `signature` is the call's `thoughtSignature` (Gemini 3 signs the first). */
  readonly functionCalls?: readonly { readonly name: string; readonly args: unknown; readonly signature?: string }[];
  readonly finishReason?: 'STOP' | 'MAX_TOKENS' | 'SAFETY';
  readonly usage?: { readonly prompt: number; readonly candidates: number; readonly cached?: number };
}

export type GeminiReply =
  | GeminiTurn
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly headers?: Record<string, string>;
      /** For a 429: the `RetryInfo` delay, e.g. `2s`. */
      readonly retryDelay?: string;
    }
  | { readonly kind: 'reset' };

export interface FakeGeminiServer extends FakeProviderServer {
  /** The `baseURL` for `createGoogleGenerativeAI`: `http://127.0.0.1:PORT/v1beta`. */
  readonly baseUrl: string;
  readonly refusals: readonly string[];
}

/** The SDK's stand-in for a signature it does not have: Gemini takes it, the model's reasoning is lost. */
const skipSignature = 'skip_thought_signature_validator';

const statusNames: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * A fake of the Gemini API (`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`)
 * that checks every request and answers 400 `INVALID_ARGUMENT` when it is wrong:
 *
 * - the `x-goog-api-key` must be `apiKey`;
 * - contents are `user` or `model` turns with parts;
 * - each model turn with `functionCall`s is followed by a user turn with a
 *   `functionResponse` for each (same names, same count), and a
 *   `functionResponse` only follows such a turn;
 * - a function call the server signed comes back with its
 *   `thoughtSignature` unchanged (stricter than Gemini, which also takes
 *   the SDK's `skip_thought_signature_validator` stand-in, losing the
 *   model's reasoning); a signature the server never issued is refused.
 *
 * @example
 * const server = await startFakeGeminiServer({ respond: [{ kind: 'content', text: 'Hello' }] });
 * const google = createGoogleGenerativeAI({ baseURL: server.baseUrl, apiKey: 'gemini-test-key' });
 */
export async function startFakeGeminiServer({
  respond,
  apiKey = 'gemini-test-key-0000',
}: {
  respond: readonly GeminiReply[] | ((request: ProviderRequest, index: number) => GeminiReply);
  apiKey?: string;
}): Promise<FakeGeminiServer> {
  const refusals: string[] = [];
  /** Signed function calls: `name args-json` → signature. */
  const signedCalls = new Map<string, string>();
  const signatures = new Set<string>();
  let answered = 0;
  const server = await startFakeProviderServer({
    handle: (request) => {
      if (
        request.method !== 'POST' ||
        !/^\/v1beta\/models\/[^/:]+:streamGenerateContent\?alt=sse$/.test(request.path)
      ) {
        return { kind: 'error', status: 404, body: geminiError(404, 'no such route') };
      }
      if (request.headers['x-goog-api-key'] !== apiKey) {
        return { kind: 'error', status: 403, body: geminiError(403, 'API key not valid') };
      }
      const problem = checkRequest(request.body, { signedCalls, signatures });
      if (problem !== undefined) {
        refusals.push(problem);
        return { kind: 'error', status: 400, body: geminiError(400, problem) };
      }
      const index = answered;
      answered += 1;
      const reply = typeof respond === 'function' ? respond(request, index) : respond[index];
      if (reply === undefined)
        return { kind: 'error', status: 500, body: geminiError(500, 'the fake ran out of replies') };
      return toProviderReply(reply, { signedCalls, signatures });
    },
  });
  return { ...server, baseUrl: `${server.origin}/v1beta`, refusals };
}

interface Issued {
  signedCalls: Map<string, string>;
  signatures: Set<string>;
}

function geminiError(code: number, message: string, details?: unknown[]) {
  return {
    error: { code, message, status: statusNames[code] ?? 'UNKNOWN', ...(details === undefined ? {} : { details }) },
  };
}

function callKey(name: unknown, args: unknown): string {
  return `${String(name)} ${JSON.stringify(args)}`;
}

function toProviderReply(reply: GeminiReply, issued: Issued): ProviderReply {
  if (reply.kind === 'reset') return { kind: 'reset' };
  if (reply.kind === 'error') {
    const details =
      reply.retryDelay === undefined
        ? undefined
        : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: reply.retryDelay }];
    return {
      kind: 'error',
      status: reply.status,
      ...(reply.headers === undefined ? {} : { headers: reply.headers }),
      body: geminiError(reply.status, `fake error ${reply.status}`, details),
    };
  }
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    data: { candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: 'gemini-fake' },
  });
  const events: { data: unknown }[] = [];
  if (reply.thought !== undefined) {
    issued.signatures.add(reply.thought.signature);
    events.push(chunk([{ text: reply.thought.text, thought: true, thoughtSignature: reply.thought.signature }]));
  }
  if (reply.text !== undefined) {
    const size = reply.textChunkSize ?? Math.max(1, reply.text.length);
    for (let at = 0; at < reply.text.length; at += size)
      events.push(chunk([{ text: reply.text.slice(at, at + size) }]));
  }
  if (reply.functionCalls !== undefined && reply.functionCalls.length > 0) {
    events.push(
      chunk(
        reply.functionCalls.map((call) => {
          if (call.signature !== undefined) {
            issued.signatures.add(call.signature);
            issued.signedCalls.set(callKey(call.name, call.args), call.signature);
          }
          return {
            functionCall: { name: call.name, args: call.args },
            ...(call.signature === undefined ? {} : { thoughtSignature: call.signature }),
          };
        }),
      ),
    );
  }
  const usage = reply.usage ?? { prompt: 20, candidates: 10 };
  events.push({
    data: {
      candidates: [{ finishReason: reply.finishReason ?? 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: usage.prompt,
        candidatesTokenCount: usage.candidates,
        totalTokenCount: usage.prompt + usage.candidates,
        ...(usage.cached === undefined ? {} : { cachedContentTokenCount: usage.cached }),
      },
      modelVersion: 'gemini-fake',
    },
  });
  return { kind: 'sse', events };
}

function checkRequest(body: unknown, issued: Issued): string | undefined {
  if (!isRecord(body)) return 'the body must be a JSON object';
  const contents = body['contents'];
  if (!Array.isArray(contents) || contents.length === 0) return 'contents: at least one content is required';
  for (const tool of Array.isArray(body['tools']) ? body['tools'] : []) {
    if (!isRecord(tool)) return 'tools: each tool must be an object';
    for (const declaration of Array.isArray(tool['functionDeclarations']) ? tool['functionDeclarations'] : []) {
      if (!isRecord(declaration) || typeof declaration['name'] !== 'string') {
        return 'tools.functionDeclarations: each declaration needs a name';
      }
    }
  }
  let pendingCalls: string[] = [];
  for (const [position, content] of contents.entries()) {
    if (!isRecord(content) || (content['role'] !== 'user' && content['role'] !== 'model')) {
      return `contents[${position}].role: must be "user" or "model"`;
    }
    const parts = content['parts'];
    if (!Array.isArray(parts) || parts.length === 0) return `contents[${position}].parts: must not be empty`;
    const calls: string[] = [];
    const responses: string[] = [];
    for (const part of parts) {
      if (!isRecord(part)) return `contents[${position}].parts: each part must be an object`;
      const given = part['thoughtSignature'];
      if (
        given !== undefined &&
        given !== skipSignature &&
        (typeof given !== 'string' || !issued.signatures.has(given))
      ) {
        return `contents[${position}]: Corrupted thought signature.`;
      }
      const signature = part['thoughtSignature'];
      if (isRecord(part['functionCall'])) {
        if (content['role'] !== 'model') return `contents[${position}]: functionCall only in model turns`;
        const { name, args } = part['functionCall'];
        if (typeof name !== 'string' || !isRecord(args))
          return `contents[${position}]: functionCall needs a name and args`;
        const expected = issued.signedCalls.get(callKey(name, args));
        if (expected !== undefined && (signature === undefined || signature === skipSignature)) {
          return `contents[${position}]: Function call is missing a thought_signature in functionCall parts.`;
        }
        calls.push(name);
      } else if (isRecord(part['functionResponse'])) {
        if (content['role'] !== 'user') return `contents[${position}]: functionResponse only in user turns`;
        const { name, response } = part['functionResponse'];
        if (typeof name !== 'string' || !isRecord(response)) {
          return `contents[${position}]: functionResponse needs a name and a response`;
        }
        responses.push(name);
      } else if (typeof part['text'] !== 'string') {
        return `contents[${position}]: unsupported part`;
      }
    }
    if (pendingCalls.length > 0 || responses.length > 0) {
      const sorted = (names: string[]) => [...names].sort().join(',');
      if (sorted(pendingCalls) !== sorted(responses)) {
        return `contents[${position}]: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.`;
      }
    }
    pendingCalls = calls;
  }
  if (pendingCalls.length > 0) return 'contents: the last model turn has function calls without responses';
  return undefined;
}
