import { createRequire } from 'node:module';
import type { ToolSpec } from '../core/tool-spec.js';

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

/**
 * Tokens a provider adds around each function definition beyond its JSON
 * (the wrapper it renders the tool into, separators). An estimate: OpenAI
 * does not publish the exact framing, and gpt-tokenizer uses 9 for the whole
 * `functions` block. Eight per tool keeps a catalogue's total on the safe side.
 */
export const TOOL_SPEC_OVERHEAD_TOKENS = 8;

/** Special-token text in user input is counted as plain text, never rejected. */
const plainText = { disallowedSpecial: new Set<string>() };

let encoding: Encoding | undefined;

/**
 * The o200k_base tables take about 100 ms to load, so they are loaded on the
 * first count rather than at import: `arbiter validate` never pays for them.
 */
function loadEncoding(): Encoding {
  if (encoding === undefined) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/encoding/o200k_base') as Encoding;
  }
  return encoding;
}

/**
 * Counts the tokens of a text with the o200k_base encoding (GPT-4o, GPT-4.1,
 * o-series, GPT-5). Other model families tokenize differently; treat the
 * result as an estimate within a few percent for them.
 *
 * @example
 * countTokens('Where is my order SO20260901?'); // 9
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return loadEncoding().countTokens(text, plainText);
}

/**
 * Estimates what one function definition costs on every turn it is mounted:
 * the tokens of its name, description and parameters serialised as compact
 * JSON with sorted keys (so the count does not depend on key order), plus
 * {@link TOOL_SPEC_OVERHEAD_TOKENS}.
 *
 * @example
 * const perTurn = registry.specs.reduce((sum, spec) => sum + countToolSpecTokens(spec), 0);
 */
export function countToolSpecTokens(spec: ToolSpec): number {
  const { name, description, parameters } = spec.function;
  return countTokens(stableStringify({ name, description, parameters })) + TOOL_SPEC_OVERHEAD_TOKENS;
}

function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) => {
    if (nested === null || typeof nested !== 'object' || Array.isArray(nested)) return nested;
    const entries = Object.entries(nested).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return Object.fromEntries(entries);
  });
}
