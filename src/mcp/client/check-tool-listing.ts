import type { Tool } from '@modelcontextprotocol/client';
import { isRecord } from '../../util/is-record.js';

/** The largest `tools/list` answer read, all pages together, as characters of JSON (about). */
export const maxListingChars = 4 * 1024 * 1024;
/** The deepest nesting of JSON values in one listed tool (a 16-level schema is about 34). */
export const maxToolJsonDepth = 64;

/** One page of a `tools/list` answer as checked: the tools fit to read, the ones refused, the next cursor. */
export interface CheckedToolListing {
  readonly tools: readonly Tool[];
  readonly refused: readonly { readonly tool: string; readonly problem: string }[];
  readonly nextCursor: string | undefined;
  /** Characters of JSON this page took (about), added to the listing's total. */
  readonly chars: number;
}

/**
 * Checks one page of a server's `tools/list` answer before anything
 * recursive (the SDK's schema validation, `JSON.stringify`, a schema
 * walker) touches it: its size and each tool's nesting are measured with
 * an explicit stack, never by recursion, so a listing built to overflow
 * the stack cannot. A tool nested deeper than `maxToolJsonDepth` is
 * refused by name and the others are kept; a page that is no listing, or
 * that takes the listing past `maxListingChars`, is a `problem` for the
 * whole server.
 *
 * @example
 * const page = checkToolListing({ result, charsSoFar: 0 });
 * if ('problem' in page) throw new Error(page.problem);
 */
export function checkToolListing({
  result,
  charsSoFar,
}: {
  result: unknown;
  /** Characters of the pages before this one. */
  charsSoFar: number;
}): CheckedToolListing | { readonly problem: string } {
  if (!isRecord(result) || !Array.isArray(result['tools']))
    return { problem: 'its tools/list answer has no tools array' };
  const tools: Tool[] = [];
  const refused: { tool: string; problem: string }[] = [];
  let chars = charsSoFar;
  for (const entry of result['tools'] as unknown[]) {
    const measured = measure(entry, maxListingChars - chars);
    chars += measured.chars;
    if (chars > maxListingChars) {
      return {
        problem: `its tool listing is above the ${maxListingChars / 1024 / 1024} MB limit`,
      };
    }
    const name = isRecord(entry) && typeof entry['name'] === 'string' ? entry['name'] : '';
    if (!isRecord(entry)) {
      refused.push({ tool: name, problem: 'is not an object' });
      continue;
    }
    if (measured.depth > maxToolJsonDepth) {
      refused.push({ tool: name, problem: `nests more than ${maxToolJsonDepth} levels deep` });
      continue;
    }
    tools.push(entry as unknown as Tool);
  }
  const cursor = result['nextCursor'];
  return {
    tools,
    refused,
    nextCursor: typeof cursor === 'string' && cursor !== '' ? cursor : undefined,
    chars: chars - charsSoFar,
  };
}

/** The deepest nesting and the size (about) of a JSON value, walked with a stack; stops past `budget` characters. */
function measure(value: unknown, budget: number): { depth: number; chars: number } {
  let deepest = 0;
  let chars = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (depth > deepest) deepest = depth;
    if (chars > budget) break;
    if (typeof current === 'string') chars += current.length + 2;
    else if (Array.isArray(current)) {
      chars += 2 + current.length;
      for (const item of current) stack.push({ value: item, depth: depth + 1 });
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        chars += key.length + 4;
        stack.push({ value: item, depth: depth + 1 });
      }
      chars += 2;
    } else chars += String(current).length;
  }
  return { depth: deepest, chars };
}
