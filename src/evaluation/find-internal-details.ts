/** A piece of a model-facing text that belongs to the implementation, not to the conversation. */
export interface InternalDetail {
  readonly kind: 'sql' | 'stack_trace' | 'file_path' | 'internal_name';
  /** The matched text, shortened. */
  readonly excerpt: string;
}

const detectors: readonly { readonly kind: InternalDetail['kind']; readonly pattern: RegExp }[] = [
  { kind: 'sql', pattern: /\b(?:SELECT|UPDATE|DELETE)\b[^\n]{0,120}?\b(?:FROM|SET|WHERE)\b/ },
  { kind: 'sql', pattern: /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b/ },
  { kind: 'sql', pattern: /\b(?:SQLITE_\w+|no such (?:table|column)|constraint failed|syntax error at or near)\b/i },
  {
    kind: 'stack_trace',
    pattern: /^\s*at\s+(?:async\s+)?[^\s(]+\s+\(?(?:file:|node:|\/|[A-Za-z]:\\)[^\n]*:\d+:\d+\)?/m,
  },
  { kind: 'stack_trace', pattern: /Traceback \(most recent call last\)|\bat\s+[\w$.<>]+\s+\([^)\n]*:\d+:\d+\)/ },
  {
    kind: 'file_path',
    pattern:
      /(?<=^|[\s"'(=])(?:\/[\w.@-]+){2,}\.(?:ts|js|mjs|cjs|json|db|sqlite|py|go|java|rb)\b|\bnode_modules\b|file:\/\/\//,
  },
  { kind: 'file_path', pattern: /\b[A-Za-z]:\\(?:[\w .-]+\\)+/ },
  {
    kind: 'internal_name',
    pattern:
      /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|SqliteError|InfrastructureError|ECONNREFUSED|ERR_[A-Z_]{4,})\b/,
  },
];

/**
 * Finds SQL, stack traces, file paths and internal error names in a text a
 * model or a user will read (the first of each kind). arbiter's contract is that none ever appears
 * there; every evaluation case checks every tool message and answer.
 *
 * @example
 * findInternalDetails('SqliteError: no such table: orders'); // [{ kind: 'sql', … }, { kind: 'internal_name', … }]
 * findInternalDetails('No order SO20269999 was found for this customer.'); // []
 */
export function findInternalDetails(text: string): InternalDetail[] {
  const found: InternalDetail[] = [];
  for (const { kind, pattern } of detectors) {
    if (found.some((detail) => detail.kind === kind)) continue;
    const match = pattern.exec(text);
    if (match !== null) found.push({ kind, excerpt: shorten(match[0].trim()) });
  }
  return found;
}

function shorten(text: string): string {
  return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
