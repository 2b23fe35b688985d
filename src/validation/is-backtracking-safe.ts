/**
 * True when a backtracking engine (JavaScript's `RegExp`) provably matches
 * the pattern in time linear in the input, so it can run natively instead of
 * on RE2 (about ten times slower per test in JavaScript). Deliberately
 * narrow, and covering the patterns tool schemas mostly carry (`^SO\d{8}$`,
 * `^[A-Z]{3}-\d{4}$`, `^[a-z0-9_]+$`):
 *
 * - anchored at the start (`^`), so only one starting position is tried;
 * - no alternation (`|`) and no quantified group, so no choice multiplies
 *   another;
 * - at most one quantifier whose count can vary (`*`, `+`, `?`, `{n,}`,
 *   `{n,m}`); fixed counts (`{8}`) are free. With one such quantifier the
 *   engine backtracks through at most one choice per input character.
 * - no backreferences, lookaround or other escapes it cannot classify.
 *
 * Anything else is matched by RE2 (see `linearRegExp`).
 *
 * @example
 * isBacktrackingSafe('^SO\\d{8}$'); // true
 * isBacktrackingSafe('^(a+)+$');    // false: a quantified group
 * isBacktrackingSafe('^a?a?aa$');   // false: two varying quantifiers
 */
export function isBacktrackingSafe(pattern: string): boolean {
  if (!pattern.startsWith('^')) return false;
  let varying = 0;
  let index = 1;
  /** Whether the token just read may carry a quantifier, and whether it was a group. */
  let previous: 'none' | 'atom' | 'group' = 'none';
  while (index < pattern.length) {
    const character = pattern[index] as string;
    if (character === '\\') {
      const escaped = pattern[index + 1];
      if (escaped === undefined || !isPlainEscape(escaped)) return false;
      index += escaped === 'p' || escaped === 'P' ? propertyEscapeLength(pattern, index) : 2;
      if (index < 0) return false;
      previous = 'atom';
      continue;
    }
    if (character === '[') {
      const end = classEnd(pattern, index);
      if (end < 0) return false;
      index = end + 1;
      previous = 'atom';
      continue;
    }
    if (character === '|') return false;
    if (character === '(') {
      if (pattern[index + 1] === '?' && pattern[index + 2] !== ':') return false;
      index += pattern[index + 1] === '?' ? 3 : 1;
      previous = 'none';
      continue;
    }
    if (character === ')') {
      index += 1;
      previous = 'group';
      continue;
    }
    const quantifier = readQuantifier(pattern, index);
    if (quantifier !== undefined) {
      if (previous !== 'atom') return false;
      if (quantifier.varies) varying += 1;
      if (varying > 1) return false;
      index = quantifier.end;
      if (pattern[index] === '?') index += 1;
      previous = 'none';
      continue;
    }
    if (character === '{' || character === '}' || character === ']') return false;
    if (character === '$' && index !== pattern.length - 1) return false;
    if (character === '^') return false;
    index += 1;
    previous = 'atom';
  }
  return true;
}

/** Escapes of one character or one class of characters: never a backreference or a word boundary. */
function isPlainEscape(escaped: string): boolean {
  return /^[dDwWsSpPtnrfv.\\/^$*+?()[\]{}|-]$/.test(escaped);
}

/** `\p{L}`: the length of the escape from the backslash, or -1 when malformed. */
function propertyEscapeLength(pattern: string, start: number): number {
  if (pattern[start + 2] !== '{') return -1;
  const close = pattern.indexOf('}', start + 3);
  return close < 0 ? -1 : close + 1;
}

/** The index of the `]` that closes the class opened at `start`, or -1. */
function classEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '^') index += 1;
  if (pattern[index] === ']') index += 1;
  while (index < pattern.length) {
    const character = pattern[index];
    if (character === '\\') index += 2;
    else if (character === '[') return -1;
    else if (character === ']') return index;
    else index += 1;
  }
  return -1;
}

function readQuantifier(pattern: string, start: number): { varies: boolean; end: number } | undefined {
  const character = pattern[start];
  if (character === '*' || character === '+' || character === '?') return { varies: true, end: start + 1 };
  if (character !== '{') return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(start, start + 24));
  if (match === null) return undefined;
  const [text, low, range, high] = match;
  const varies = range !== undefined && high !== low;
  return { varies, end: start + text.length };
}
