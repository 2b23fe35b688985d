import { InputFileError } from '../../errors/input-file-error.js';
import { ToolDefinitionError } from '../../errors/tool-definition-error.js';
import { chooseTools } from '../../routing/choose-tools.js';
import { DEFAULT_ROUTING_TOP_K } from '../../routing/routing-options.js';
import { fromOpenAiTool } from '../../tools/from-openai-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { CommandResult } from '../cli-output.js';
import { defaultMaxInputBytes, readText, readToolsFile } from '../read-input-file.js';

/** One line of a queries file. */
export interface QueryRecord {
  readonly id: string;
  readonly query: string;
}

/**
 * `arbiter route --tools FILE --queries FILE [--top K]`: for each request
 * of a JSONL file (`{"id", "query"}` per line), the tools the router would
 * send with it as the first step of a run: one JSON line `{"id", "tools":
 * [...]}`, the tools in the order of the tools file (as they are sent).
 * Exit 0 when every request matched a tool, 1 when any matched none (its
 * `tools` is empty: a run would send every tool; one stderr line names
 * those requests), 2 when a file is
 * unreadable or malformed or a tool would be refused at registration.
 *
 * @example
 * const result = routeQueries({ toolsFile: 'tools.json', queriesFile: 'queries.jsonl', top: 5 });
 * for (const line of result.stdout) console.log(line);
 */
export function routeQueries({
  toolsFile,
  queriesFile,
  top = DEFAULT_ROUTING_TOP_K,
}: {
  toolsFile: string;
  queriesFile: string;
  top?: number;
}): CommandResult {
  const registry = new ToolRegistry();
  let queries: QueryRecord[];
  try {
    for (const tool of readToolsFile({ path: toolsFile })) registry.register(fromOpenAiTool(tool));
    queries = readQueriesFile(queriesFile);
  } catch (error) {
    if (InputFileError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [error.message] };
    if (ToolDefinitionError.isInstance(error)) {
      return { exitCode: 2, stdout: [], stderr: [`${toolsFile}: ${error.message}`] };
    }
    throw error;
  }
  if (queries.length === 0) {
    return {
      exitCode: 2,
      stdout: [],
      stderr: [`${queriesFile} holds no requests (one {"id", "query"} JSON object a line)`],
    };
  }
  const unmatched: string[] = [];
  const stdout = queries.map(({ id, query }) => {
    const choice = chooseTools({
      specs: registry.specs,
      query: [{ text: query, weight: 1 }],
      topK: top,
      onNoMatch: 'kept',
    });
    if (choice.reason === 'no_match') unmatched.push(id);
    return JSON.stringify({ id, tools: choice.tools });
  });
  if (unmatched.length === 0) return { exitCode: 0, stdout, stderr: [] };
  const shown = unmatched.length > 10 ? [...unmatched.slice(0, 10), '…'] : unmatched;
  const reason =
    `${unmatched.length} of ${queries.length} ${queries.length === 1 ? 'request' : 'requests'} matched no tool ` +
    `(${shown.join(', ')}): they share no word with any tool's name, description or parameters, ` +
    'so a run would send every tool';
  return { exitCode: 1, stdout, stderr: [reason] };
}

/**
 * Reads a JSONL file of requests, `{"id", "query"}` per line (other fields
 * ignored, blank lines skipped, a missing id becomes `line-N`). Throws
 * `InputFileError` as `queries.jsonl:3: …` for a bad line.
 *
 * @example
 * readQueriesFile('queries.jsonl'); // [{ id: 'q1', query: 'Where is my parcel?' }]
 */
export function readQueriesFile(path: string): QueryRecord[] {
  const queries: QueryRecord[] = [];
  for (const [index, text] of readText(path, defaultMaxInputBytes).split(/\r?\n/).entries()) {
    if (text.trim() === '') continue;
    const line = index + 1;
    const fail = (problem: string, cause?: unknown): never => {
      throw new InputFileError({ file: path, line, problem, cause });
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      fail(`not valid JSON (${error instanceof Error ? error.message : String(error)})`, error);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return fail('expected a request object {"id", "query"}');
    }
    const { id = `line-${line}`, query } = parsed as Record<string, unknown>;
    if (typeof id !== 'string') return fail(`"id" must be a string, got ${JSON.stringify(id)}`);
    if (typeof query !== 'string')
      return fail(`"query" must be the request as a string, got ${JSON.stringify(query) ?? 'nothing'}`);
    queries.push({ id, query });
  }
  return queries;
}
