/**
 * Where `text` stops being JSON, as a 1-based line and column: the first
 * character a JSON parser cannot accept (a trailing comma's closing
 * bracket, a missing comma's next key), or just past the end of a cut-off
 * text. Found by reading the text again, since V8's messages name the
 * place in some cases only (`at position N`) and never the line on Node
 * 20. `undefined` for valid JSON.
 *
 * @example
 * jsonSyntaxPosition('{\n  "tokens": [],\n}'); // { line: 3, column: 1 }
 */
export function jsonSyntaxPosition(text: string): { line: number; column: number } | undefined {
  const offset = firstInvalidOffset(text);
  if (offset === undefined) return undefined;
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * Why `text` is not JSON, in words that quote one character of it at most
 * (an auth file holds secrets): `not valid JSON: "]" where a value was
 * expected`, with the line and column to put before it.
 *
 * @example
 * jsonSyntaxProblem('{"a": 1,}'); // { line: 1, column: 9, problem: 'not valid JSON: unexpected "}" (a trailing comma?)' }
 */
export function jsonSyntaxProblem(text: string): { line?: number; column?: number; problem: string } {
  const offset = firstInvalidOffset(text);
  if (offset === undefined) return { problem: 'not valid JSON' };
  const place = jsonSyntaxPosition(text) ?? {};
  const char = text[offset];
  if (char === undefined) return { ...place, problem: 'not valid JSON: the text ends before the JSON does' };
  const previous = text.slice(0, offset).trimEnd().at(-1);
  const hint =
    (char === '}' || char === ']') && previous === ','
      ? ' (a trailing comma before it?)'
      : previous !== undefined && /["\d\]}el]/.test(previous) && /["{[\dtfn-]/.test(char)
        ? ' (a missing comma before it?)'
        : '';
  return { ...place, problem: `not valid JSON: unexpected ${JSON.stringify(char)}${hint}` };
}

const whitespace = new Set([' ', '\t', '\n', '\r']);
const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON refuses a raw control character inside a string.
const stringPattern = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** The offset of the first character that breaks the JSON grammar, or `undefined` when there is none. */
function firstInvalidOffset(text: string): number | undefined {
  let at = 0;
  const skip = () => {
    while (at < text.length && whitespace.has(text[at] ?? '')) at += 1;
  };
  const match = (pattern: RegExp): boolean => {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (found === null) return false;
    at += found[0].length;
    return true;
  };
  /** Reads one value at `at`; false where it breaks (then `at` is where). */
  const value = (): boolean => {
    skip();
    const char = text[at];
    if (char === '{') return container('}', true);
    if (char === '[') return container(']', false);
    if (char === '"') return match(stringPattern);
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return true;
      }
    }
    return match(numberPattern);
  };
  const container = (close: string, keyed: boolean): boolean => {
    at += 1;
    skip();
    if (text[at] === close) {
      at += 1;
      return true;
    }
    for (;;) {
      if (keyed) {
        skip();
        if (text[at] !== '"' || !match(stringPattern)) return false;
        skip();
        if (text[at] !== ':') return false;
        at += 1;
      }
      if (!value()) return false;
      skip();
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text[at] === close) {
        at += 1;
        return true;
      }
      return false;
    }
  };
  if (!value()) return at;
  skip();
  return at < text.length ? at : undefined;
}
