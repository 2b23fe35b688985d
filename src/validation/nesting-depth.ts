/** Deeper arguments are refused (`too_deep`) before anything recursive walks them: no tool's schema needs more. */
export const maxArgumentDepth = 64;

/**
 * Arguments as JSON text for the validator: `JSON.stringify(args)`, or, for
 * arguments nested deeper than `maxArgumentDepth` (which `JSON.stringify`
 * itself may not survive), a text just as deep that validation refuses with
 * its ordinary `too_deep` message.
 *
 * @example
 * const call = { id, type: 'function', function: { name, arguments: argumentsText(args) } };
 */
export function argumentsText(args: Readonly<Record<string, unknown>>): string {
  if (nestingDepth(args, maxArgumentDepth) <= maxArgumentDepth) return JSON.stringify(args);
  return `{"arguments":${'['.repeat(maxArgumentDepth)}${']'.repeat(maxArgumentDepth)}}`;
}

/**
 * The deepest nesting of arrays and objects anywhere in `value`, counted
 * without recursion (an explicit stack), and given up past `limit` (returns
 * `limit + 1`): arguments nested thousands of levels deep must be refused
 * before anything recursive (the schema validator, canonical JSON, a
 * redactor) walks them and overflows the stack.
 *
 * @example
 * nestingDepth({ a: [{ b: 1 }] }, 64); // 3
 */
export function nestingDepth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  const stack: { value: object; depth: number }[] = [{ value, depth: 1 }];
  let visited = 0;
  while (stack.length > 0) {
    const top = stack.pop() as { value: object; depth: number };
    if (top.depth > deepest) deepest = top.depth;
    if (deepest > limit) return limit + 1;
    visited += 1;
    // Very wide values are measured by their first million containers: depth is what overflows a stack.
    if (visited > 1_000_000) break;
    const children = Array.isArray(top.value) ? top.value : Object.values(top.value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: top.depth + 1 });
    }
  }
  return deepest;
}

/**
 * `nestingDepth` of JSON text, read from its brackets outside strings
 * without parsing it: the depth of deeply nested text is known before
 * `JSON.parse` builds it.
 *
 * @example
 * jsonTextDepth('{"a":[{"b":"]"}]}', 64); // 3
 */
export function jsonTextDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92)
        index += 1; // backslash: the next character is escaped
      else if (code === 34) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return limit + 1;
      }
    } else if (code === 125 || code === 93) depth -= 1;
  }
  return deepest;
}
