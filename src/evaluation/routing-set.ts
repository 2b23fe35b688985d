import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locale } from '../core/locale.js';
import { InputFileError } from '../errors/input-file-error.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { fromOpenAiTool, type OpenAiFunctionTool } from '../tools/from-openai-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';

/**
 * The built-in routing set's directory, wherever the package is (a
 * checkout's `evals/routing`, an installed package's `dist/evals/routing`):
 * `tools.json`, 56 tools of eight domains in OpenAI format, and
 * `queries.jsonl`, 120 labelled requests, half in English, half in Chinese.
 *
 * @example
 * import { join } from 'node:path';
 * const tools = JSON.parse(readFileSync(join(builtInRoutingSet, 'tools.json'), 'utf8'));
 */
export const builtInRoutingSet = fileURLToPath(new URL('../../evals/routing', import.meta.url));

/** One labelled request: the tool that should handle it. */
export interface RoutingQuery {
  readonly id: string;
  readonly query: string;
  readonly locale: Locale;
  /** The right tool for the request. */
  readonly expected: string;
}

/** A routing set: its tools (registered, so each is a valid definition) and its labelled requests. */
export interface RoutingSet {
  readonly directory: string;
  readonly tools: ToolRegistry;
  readonly queries: readonly RoutingQuery[];
}

/**
 * Reads a routing set directory: `tools.json` (a JSON array of tools in
 * OpenAI function-calling format) and `queries.jsonl` (one
 * `{"id", "query", "locale", "expected"}` per line, `locale` `en` or
 * `zh-CN`, `expected` the name of one of the tools). Throws
 * `InputFileError` naming the file and line for anything malformed, a
 * duplicate id or an expected tool that is not in the set.
 *
 * @example
 * const set = readRoutingSet(builtInRoutingSet);
 * set.queries.length; // 120
 */
export function readRoutingSet(directory: string): RoutingSet {
  const toolsFile = join(directory, 'tools.json');
  const queriesFile = join(directory, 'queries.jsonl');
  const tools = new ToolRegistry();
  const parsedTools = parseJson(read(toolsFile), toolsFile);
  if (!Array.isArray(parsedTools)) {
    throw new InputFileError({ file: toolsFile, problem: 'expected a JSON array of tools in OpenAI format' });
  }
  for (const tool of parsedTools as OpenAiFunctionTool[]) {
    try {
      tools.register(fromOpenAiTool(tool));
    } catch (error) {
      if (ToolDefinitionError.isInstance(error)) {
        throw new InputFileError({ file: toolsFile, problem: error.message, cause: error });
      }
      throw error;
    }
  }
  const queries: RoutingQuery[] = [];
  const ids = new Set<string>();
  for (const [index, text] of read(queriesFile).split(/\r?\n/).entries()) {
    if (text.trim() === '') continue;
    const line = index + 1;
    const fail = (problem: string): never => {
      throw new InputFileError({ file: queriesFile, line, problem });
    };
    const value = parseJson(text, queriesFile, line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail('expected {"id", "query", "locale", "expected"}');
    }
    const { id, query, locale = 'en', expected } = value as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') fail('"id" must be a non-empty string');
    if (ids.has(id as string)) fail(`id ${JSON.stringify(id)} is used twice`);
    if (typeof query !== 'string' || query.trim() === '') fail('"query" must be a non-empty string');
    if (locale !== 'en' && locale !== 'zh-CN') fail(`"locale" must be en or zh-CN, got ${JSON.stringify(locale)}`);
    if (typeof expected !== 'string' || tools.get(expected) === undefined) {
      fail(`"expected" must name a tool of tools.json, got ${JSON.stringify(expected)}`);
    }
    ids.add(id as string);
    queries.push({ id: id as string, query: query as string, locale: locale as Locale, expected: expected as string });
  }
  return { directory, tools, queries };
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new InputFileError({ file, problem: `cannot read the file (${code})`, cause: error });
  }
}

function parseJson(text: string, file: string, line?: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputFileError({ file, line, problem: `not valid JSON (${(error as Error).message})`, cause: error });
  }
}
