import { type CallSyntax, type ParsedToolCall, parseToolCalls } from './parse-tool-calls.js';

/**
 * The calls of one answer with each call written again word for word (the
 * same name, the same arguments) kept once, in the order first written: a
 * small model decoding greedily that writes a call a second time in the same
 * answer writes it on and on, and the copies ask for nothing new.
 *
 * @example
 * distinctCalls([call, call, other]); // [call, other]
 */
export function distinctCalls(calls: readonly ParsedToolCall[]): ParsedToolCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => {
    const key = `${call.name}\u0000${call.arguments}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * True once `text`, an answer being written, holds the same whole call twice:
 * the point to stop generating (a copy still being written, cut off, does not
 * count).
 *
 * @example
 * writesACallAgain({ text: `${call}\n${call}` }); // true
 */
export function writesACallAgain({ text, syntax }: { text: string; syntax?: CallSyntax | undefined }): boolean {
  const { calls } = parseToolCalls({ text, syntax });
  return calls.length > 1 && distinctCalls(calls).length < calls.length;
}
