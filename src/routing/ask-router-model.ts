import type { TokenUsage } from '../core/run-usage.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { Model } from '../models/model.js';
import type { RoutingTexts } from './routing-texts.js';

/** What the router model said: the names it chose (checked), or why its answer cannot be used. */
export type RouterAnswer =
  | { readonly ok: true; readonly tools: readonly string[]; readonly usage: TokenUsage; readonly model: string }
  | {
      readonly ok: false;
      readonly failure: 'timeout' | 'model_error' | 'invalid_answer';
      readonly usage: TokenUsage | undefined;
      readonly model: string;
    };

/** The longest description line the catalogue shows per tool. */
const catalogueLineChars = 160;

/**
 * Asks a small model which tools the request needs. Its answer must be a
 * JSON array of strings (a ```json fence or words around it are tolerated),
 * each the name of a given tool; a longer list is cut to `topK`. An error,
 * a timeout (`timeoutMs`) or any other answer comes back as a failure for
 * the caller to fall back on. Throws only when the run itself is aborted.
 *
 * @example
 * const answer = await askRouterModel({ model: small, specs, query, topK: 6, timeoutMs: 3000, texts });
 * const names = answer.ok ? answer.tools : lexical.tools;
 */
export async function askRouterModel({
  model,
  specs,
  query,
  task,
  topK,
  timeoutMs,
  texts,
  signal,
}: {
  model: Model;
  specs: readonly ToolSpec[];
  query: string;
  task?: string | undefined;
  topK: number;
  timeoutMs: number;
  texts: RoutingTexts;
  signal?: AbortSignal | undefined;
}): Promise<RouterAnswer> {
  const catalogue = specs.map((spec) => `- ${spec.function.name}: ${firstLine(spec.function.description)}`).join('\n');
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException('router model timed out', 'TimeoutError'));
      resolve('timeout');
    }, timeoutMs);
  });
  try {
    const answer = await Promise.race([
      model.generate({
        messages: [
          { role: 'system', content: texts.routerInstructions({ topK }) },
          { role: 'user', content: texts.routerRequest({ catalogue, task, query }) },
        ],
        tools: [],
        signal: controller.signal,
        maxOutputTokens: 200,
      }),
      timedOut,
    ]);
    if (answer === 'timeout') return { ok: false, failure: 'timeout', usage: undefined, model: model.name };
    const answeredBy = answer.model ?? model.name;
    const names = readToolNames(answer.message.content ?? '', new Set(specs.map((spec) => spec.function.name)));
    if (names === undefined) return { ok: false, failure: 'invalid_answer', usage: answer.usage, model: answeredBy };
    return { ok: true, tools: names.slice(0, topK), usage: answer.usage, model: answeredBy };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { ok: false, failure: 'model_error', usage: undefined, model: model.name };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The tool names of a router answer, or undefined when it is not a JSON
 * array of known tool names. Duplicates are dropped.
 *
 * @example
 * readToolNames('```json\n["query_order"]\n```', new Set(['query_order'])); // ['query_order']
 */
export function readToolNames(text: string, known: ReadonlySet<string>): string[] | undefined {
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start === -1 || end < start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const names: string[] = [];
  for (const item of parsed) {
    if (typeof item !== 'string' || !known.has(item)) return undefined;
    if (!names.includes(item)) names.push(item);
  }
  return names;
}

function firstLine(description: string): string {
  const line = description.split(/\r?\n/)[0]?.trim() ?? '';
  return line.length <= catalogueLineChars ? line : `${line.slice(0, catalogueLineChars - 1)}…`;
}
