/** One call found in a local model's text: the name and the raw arguments, untrusted. */
export interface ParsedToolCall {
  readonly name: string;
  /** The arguments as JSON text, or the model's raw text when it wrote no valid JSON. */
  readonly arguments: string;
}

/** How the chat template marks a call: the text before the name, between name and arguments, after them. */
export interface CallSyntax {
  readonly prefix: string;
  readonly paramsPrefix: string;
  readonly suffix: string;
}

export interface ParsedOutput {
  /** The text outside the calls, trimmed; null when nothing is left. */
  readonly content: string | null;
  readonly calls: readonly ParsedToolCall[];
}

const taggedCall = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
// A fence the text ends inside counts as closed: generation stops once the first call's JSON closes.
const fencedBlock = /```(?:json|tool_call|javascript)?\s*([\s\S]*?)(?:```|$)/g;

/**
 * Reads the tool calls out of what a local model wrote, in the forms small
 * open models use: the template's own call syntax (`<tool_call>{"name": …,
 * "arguments": …}</tool_call>` for Qwen and Hermes templates, the runtime's
 * `||call: name(…)` for templates without tools), a fenced JSON block, or a
 * bare JSON object with `name` and `arguments`. Arguments stay as written:
 * a call whose JSON is broken keeps its raw text, for arbiter's validation to
 * refuse as data, never repaired here.
 *
 * @example
 * parseToolCalls({ text: '<tool_call>\n{"name": "search", "arguments": {"q": "mug"}}\n</tool_call>' });
 * // { content: null, calls: [{ name: 'search', arguments: '{"q":"mug"}' }] }
 */
export function parseToolCalls({ text, syntax }: { text: string; syntax?: CallSyntax | undefined }): ParsedOutput {
  const tagged = collect(text, taggedCall);
  if (tagged.calls.length > 0) return tagged;
  if (syntax !== undefined && syntax.prefix.trim() !== '' && !syntax.prefix.includes('<tool_call>')) {
    const own = collectWithSyntax(text, syntax);
    if (own.calls.length > 0) return own;
  }
  const fenced = collect(text, fencedBlock);
  if (fenced.calls.length > 0) return fenced;
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const calls = callsFromJson(trimmed);
    if (calls.length > 0) return { content: null, calls };
  }
  return { content: trimmed === '' ? null : trimmed, calls: [] };
}

function collect(text: string, pattern: RegExp): ParsedOutput {
  const calls: ParsedToolCall[] = [];
  let rest = text;
  for (const match of text.matchAll(pattern)) {
    const found = callsFromJson((match[1] ?? '').trim());
    if (found.length === 0) continue;
    calls.push(...found);
    rest = rest.replace(match[0], '');
  }
  return { content: contentOf(rest), calls };
}

function collectWithSyntax(text: string, { prefix, paramsPrefix, suffix }: CallSyntax): ParsedOutput {
  const calls: ParsedToolCall[] = [];
  const starts = [prefix, prefix.trim()];
  let rest = text;
  let index = indexOfAny(text, starts, 0);
  while (index.at >= 0) {
    const afterPrefix = index.at + index.length;
    const paramsAt = text.indexOf(paramsPrefix, afterPrefix);
    if (paramsAt < 0) break;
    const name = text.slice(afterPrefix, paramsAt).trim();
    const suffixAt = text.indexOf(suffix, paramsAt + paramsPrefix.length);
    const end = suffixAt < 0 ? text.length : suffixAt;
    const argumentText = text.slice(paramsAt + paramsPrefix.length, end).trim();
    calls.push({ name, arguments: normalizeArguments(argumentText) });
    rest = rest.replace(text.slice(index.at, suffixAt < 0 ? end : end + suffix.length), '');
    index = indexOfAny(text, starts, suffixAt < 0 ? text.length : end + suffix.length);
  }
  return { content: contentOf(rest), calls };
}

function indexOfAny(text: string, needles: readonly string[], from: number): { at: number; length: number } {
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    if (needle !== '' && at >= 0) return { at, length: needle.length };
  }
  return { at: -1, length: 0 };
}

function callsFromJson(source: string): ParsedToolCall[] {
  const { values, rest } = jsonValues(source);
  const items = values.flatMap((value) => (Array.isArray(value) ? value : [value]));
  const calls: ParsedToolCall[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Record<string, unknown>;
    const name = record.name ?? (record.function as Record<string, unknown> | undefined)?.name;
    if (typeof name !== 'string') continue;
    const args =
      record.arguments ?? record.parameters ?? (record.function as Record<string, unknown> | undefined)?.arguments;
    calls.push({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
  }
  const broken = rest === '' ? undefined : brokenCall(rest);
  return broken === undefined ? calls : [...calls, broken];
}

/**
 * The JSON values one after the other at the start of `source` (`{…}\n{…}`: a
 * model that writes several calls in one block, or the same call again and
 * again), and what follows the last whole one (a value cut off or broken).
 */
function jsonValues(source: string): { values: unknown[]; rest: string } {
  const whole = tryParse(source);
  if (whole !== undefined) return { values: [whole], rest: '' };
  const values: unknown[] = [];
  let rest = source.trim();
  while (rest !== '') {
    const end = firstValueEnd(rest);
    const value = end === undefined ? undefined : tryParse(rest.slice(0, end));
    if (end === undefined || value === undefined) break;
    values.push(value);
    rest = rest.slice(end).trim();
  }
  return { values, rest };
}

/** Where the object or array at the start of `text` closes (its brackets balanced outside strings). */
export function firstValueEnd(text: string): number | undefined {
  const open = text[0];
  if (open !== '{' && open !== '[') return undefined;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{' || character === '[') depth += 1;
    else if (character === '}' || character === ']') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** A call whose JSON does not parse: its name when readable, its arguments as the raw text the model wrote. */
function brokenCall(source: string): ParsedToolCall | undefined {
  const name = /"name"\s*:\s*"([^"]+)"/.exec(source)?.[1];
  if (name === undefined) return undefined;
  const argumentsAt = /"(?:arguments|parameters)"\s*:\s*/.exec(source);
  if (argumentsAt === null) return { name, arguments: '' };
  const raw = source.slice(argumentsAt.index + argumentsAt[0].length).trim();
  return { name, arguments: raw.endsWith('}') ? raw.slice(0, -1).trim() : raw };
}

function normalizeArguments(text: string): string {
  const value = tryParse(text);
  return value === undefined ? text : JSON.stringify(value);
}

function tryParse(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch {
    return undefined;
  }
}

function contentOf(rest: string): string | null {
  const trimmed = rest.trim();
  return trimmed === '' ? null : trimmed;
}
