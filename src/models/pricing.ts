import type { TokenUsage } from '../core/run-usage.js';
import { ModelError } from '../errors/model-error.js';

/** What one model costs, per million tokens, in the table's currency. */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Input tokens served from the prompt cache; the input price when absent. */
  readonly cachedInputPerMillion?: number;
}

/** Prices by model id, exactly as the model is named in requests (`gpt-4o-mini`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The cost of some usage, split by kind of token, in the table's currency. */
export interface Cost {
  /** Input tokens not served from the cache. */
  readonly input: number;
  readonly cachedInput: number;
  readonly output: number;
  readonly total: number;
}

const priceFields = ['inputPerMillion', 'outputPerMillion', 'cachedInputPerMillion'] as const;

/**
 * Reads a price table from parsed configuration JSON:
 * `{ "gpt-4o-mini": { "inputPerMillion": 0.15, "cachedInputPerMillion": 0.075, "outputPerMillion": 0.6 } }`.
 * Throws a `ModelError` of kind `request` naming every bad entry (an unknown
 * field is an error, so a typo cannot silently price tokens at zero).
 *
 * @example
 * const prices = readPriceTable(JSON.parse(readFileSync('prices.json', 'utf8')));
 */
export function readPriceTable(json: unknown): PriceTable {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalid(['the table must be an object of model ids to prices']);
  }
  const problems: string[] = [];
  const table: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(json)) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${model}: must be an object with inputPerMillion and outputPerMillion`);
      continue;
    }
    const fields = entry as Record<string, unknown>;
    for (const field of Object.keys(fields)) {
      if (!(priceFields as readonly string[]).includes(field)) {
        problems.push(`${model}: unknown field "${field}" (expected ${priceFields.join(', ')})`);
      }
    }
    const read = (field: (typeof priceFields)[number], required: boolean): number | undefined => {
      const value = fields[field];
      if (value === undefined && !required) return undefined;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        problems.push(`${model}: ${field} must be a number ≥ 0, got ${JSON.stringify(value) ?? 'nothing'}`);
        return undefined;
      }
      return value;
    };
    const inputPerMillion = read('inputPerMillion', true);
    const outputPerMillion = read('outputPerMillion', true);
    const cachedInputPerMillion = read('cachedInputPerMillion', false);
    if (inputPerMillion === undefined || outputPerMillion === undefined) continue;
    Object.defineProperty(table, model, {
      value:
        cachedInputPerMillion === undefined
          ? { inputPerMillion, outputPerMillion }
          : { inputPerMillion, outputPerMillion, cachedInputPerMillion },
      enumerable: true,
    });
  }
  if (problems.length > 0) throw invalid(problems);
  return table;
}

/**
 * What `usage` cost on `model`: cached input tokens (a part of
 * `inputTokens`, as providers report them) at the cached price, the rest of
 * the input at the input price, output at the output price. Undefined when
 * the table has no price for the model (exact id match only: a dated
 * snapshot needs its own entry), so a caller can tell "free" from "unknown".
 *
 * @example
 * costOf({ model: 'gpt-4o-mini', usage: { inputTokens: 12_000, outputTokens: 800, cachedInputTokens: 10_000 }, prices });
 * // { input: 0.0003, cachedInput: 0.00075, output: 0.00048, total: 0.00153 }
 */
export function costOf({
  model,
  usage,
  prices,
}: {
  model: string;
  usage: TokenUsage;
  prices: PriceTable;
}): Cost | undefined {
  const price = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (price === undefined) return undefined;
  const cachedTokens = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const input = ((usage.inputTokens - cachedTokens) * price.inputPerMillion) / 1_000_000;
  const cachedInput = (cachedTokens * (price.cachedInputPerMillion ?? price.inputPerMillion)) / 1_000_000;
  const output = (usage.outputTokens * price.outputPerMillion) / 1_000_000;
  return { input, cachedInput, output, total: input + cachedInput + output };
}

function invalid(problems: readonly string[]): ModelError {
  return new ModelError({ kind: 'request', message: `price table invalid: ${problems.join('; ')}` });
}
