import { closeSync, openSync, readSync } from 'node:fs';
import { InputFileError } from '../errors/input-file-error.js';
import type { OpenAiFunctionTool } from '../tools/from-openai-tool.js';
import { isRecord } from '../util/is-record.js';

/**
 * The most bytes arbiter reads from one input file: 16 MiB. A tools or
 * calls file is far smaller; the cap stops `/dev/zero`, a pipe that never
 * ends, or a wrong path from filling memory.
 */
export const defaultMaxInputBytes = 16 * 1024 * 1024;

const chunkBytes = 64 * 1024;

/** One line of a calls file: a tool call as a model sent it. */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  /** The arguments text exactly as the model sent it (an object in the file is re-serialised). */
  readonly rawArguments: string;
  /** 1-based line in the calls file. */
  readonly line: number;
}

/**
 * Reads a JSON array of tools in OpenAI function-calling format. Throws
 * `InputFileError` naming the file (and the line, for invalid JSON) when it
 * cannot be read, is not JSON, or is not such an array.
 *
 * @example
 * const tools = readToolsFile({ path: 'tools.json' });
 * tools.map((tool) => tool.function.name); // ['query_order', …]
 */
export function readToolsFile({
  path,
  maxBytes = defaultMaxInputBytes,
}: {
  path: string;
  /** Refuse a file larger than this; 16 MiB by default. */
  maxBytes?: number;
}): OpenAiFunctionTool[] {
  const text = readText(path, maxBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const line = lineOfJsonError(text, error);
    throw new InputFileError({
      file: path,
      line,
      problem: `not valid JSON (${errorText(error)})`,
      cause: error,
    });
  }
  if (!Array.isArray(parsed)) {
    throw new InputFileError({
      file: path,
      problem: `expected a JSON array of tools in OpenAI function-calling format, [{"type": "function", "function": {"name": …, "description": …, "parameters": …}}], got ${describe(parsed)}`,
    });
  }
  return parsed.map((tool: unknown, index) => checkTool({ path, tool, index }));
}

/**
 * Reads a JSONL file of tool calls, one per line, blank lines skipped. A line
 * is `{"id", "name", "arguments"}` or an OpenAI tool call
 * `{"id", "type": "function", "function": {"name", "arguments"}}`; arguments
 * are a JSON string exactly as the model sent it, or any JSON value, which is
 * re-serialised. Throws `InputFileError` as `calls.jsonl:3: …` for a bad line.
 *
 * @example
 * for (const call of readCallsFile({ path: 'calls.jsonl' })) validateToolCall({ registry, name: call.name, rawArguments: call.rawArguments });
 */
export function readCallsFile({
  path,
  maxBytes = defaultMaxInputBytes,
}: {
  path: string;
  /** Refuse a file larger than this; 16 MiB by default. */
  maxBytes?: number;
}): ToolCallRecord[] {
  const calls: ToolCallRecord[] = [];
  const lines = readText(path, maxBytes).split(/\r?\n/);
  for (const [index, text] of lines.entries()) {
    const line = index + 1;
    if (text.trim() === '') continue;
    const fail = (message: string, cause?: unknown): never => {
      throw new InputFileError({ file: path, line, problem: message, cause });
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      fail(`not valid JSON (${errorText(error)})`, error);
    }
    if (!isRecord(parsed))
      return fail(`expected a tool call object {"id", "name", "arguments"}, got ${describe(parsed)}`);
    const call = isRecord(parsed['function']) ? parsed['function'] : parsed;
    const { name } = call;
    if (typeof name !== 'string') return fail(`"name" must be the tool name as a string, got ${describe(name)}`);
    if (!('arguments' in call))
      return fail(`call to ${name} has no "arguments" (an object or the JSON string the model sent)`);
    const id = parsed['id'] ?? `line-${line}`;
    if (typeof id !== 'string') return fail(`"id" must be a string, got ${describe(id)}`);
    const { arguments: value } = call;
    calls.push({ id, name, rawArguments: typeof value === 'string' ? value : JSON.stringify(value), line });
  }
  return calls;
}

/**
 * Reads a text file in chunks and stops one byte past the cap, so endless
 * inputs (`/dev/zero`, pipes) end too; a BOM is dropped. Throws
 * `InputFileError` when it cannot be read or is too large.
 *
 * @example
 * const lines = readText('queries.jsonl', defaultMaxInputBytes).split(/\r?\n/);
 */
export function readText(path: string, maxBytes: number): string {
  const chunks: Buffer[] = [];
  let total = 0;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, maxBytes + 1 - total));
      const read = readSync(descriptor, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) break;
    }
  } catch (error) {
    const reason = isRecord(error) && typeof error['code'] === 'string' ? error['code'] : errorText(error);
    throw new InputFileError({ file: path, problem: `cannot read the file (${reason})`, cause: error });
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  if (total > maxBytes) {
    throw new InputFileError({
      file: path,
      problem: `larger than ${sizeText(maxBytes)}, the most arbiter reads from one input file`,
    });
  }
  return Buffer.concat(chunks, total)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
}

function sizeText(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`;
}

function checkTool({ path, tool, index }: { path: string; tool: unknown; index: number }): OpenAiFunctionTool {
  const fail = (message: string): never => {
    throw new InputFileError({ file: path, problem: `tool [${index}]: ${message}` });
  };
  if (!isRecord(tool) || tool['type'] !== 'function' || !isRecord(tool['function'])) {
    return fail(`expected {"type": "function", "function": {"name": …}}, got ${describe(tool)}`);
  }
  const definition = tool['function'];
  const { name, description, parameters } = definition;
  if (typeof name !== 'string') return fail(`"function.name" must be a string, got ${describe(name)}`);
  if (description !== undefined && typeof description !== 'string') {
    return fail(`"function.description" of ${name} must be a string, got ${describe(description)}`);
  }
  if (parameters !== undefined && !isRecord(parameters)) {
    return fail(`"function.parameters" of ${name} must be a JSON Schema object, got ${describe(parameters)}`);
  }
  return {
    type: 'function',
    function: {
      name,
      ...(description === undefined ? {} : { description }),
      ...(parameters === undefined ? {} : { parameters }),
      ...(typeof definition['strict'] === 'boolean' ? { strict: definition['strict'] } : {}),
    },
  };
}

/** Node 20 reports `… in JSON at position 42`; turn that into a line number. */
function lineOfJsonError(text: string, error: unknown): number | undefined {
  const position = /at position (\d+)/.exec(errorText(error))?.[1];
  if (position === undefined) return undefined;
  return text.slice(0, Number(position)).split('\n').length;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 39)}…` : text}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
