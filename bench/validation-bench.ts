/**
 * Validation speed against zod 4 on the same contract: a refund tool with a
 * pattern, an enum, bounds, an optional field and a nested array of objects.
 *
 * (1) valid calls: arbiter's compiled validator vs zod `safeParse`;
 * (2) invalid calls: arbiter's validator plus the full model-facing message
 *     (`formatValidationMessage`) vs zod's bare `safeParse` failure.
 *
 * Run alone with `npx tsx bench/validation-bench.ts`.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { JsonSchema } from '../src/core/json-schema.js';
import { compileToolValidator, formatValidationMessage } from '../src/validation/index.js';

const reasons = ['damaged', 'not_received', 'wrong_item', 'other'] as const;

const refundSchema: JsonSchema = {
  type: 'object',
  properties: {
    order_id: {
      type: 'string',
      pattern: '^SO\\d{8}$',
      description: 'Order number: SO followed by 8 digits',
      examples: ['SO20260901'],
    },
    amount_cents: {
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000,
      description: 'Refund amount in cents',
      examples: [1999],
    },
    reason: { type: 'string', enum: [...reasons], description: 'Why the customer wants a refund' },
    note: { type: 'string', minLength: 1, maxLength: 500, description: 'Free text for the support team' },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      description: 'The order lines to refund',
      items: {
        type: 'object',
        properties: {
          sku: {
            type: 'string',
            pattern: '^[A-Z]{3}-\\d{4}$',
            description: 'Stock keeping unit',
            examples: ['ABC-1234'],
          },
          quantity: { type: 'integer', minimum: 1, maximum: 99, description: 'How many units', examples: [1] },
        },
        required: ['sku', 'quantity'],
        additionalProperties: false,
      },
    },
  },
  required: ['order_id', 'amount_cents', 'reason', 'items'],
  additionalProperties: false,
};

const refundZod = z
  .object({
    order_id: z.string().regex(/^SO\d{8}$/),
    amount_cents: z.number().int().min(1).max(1_000_000),
    reason: z.enum(reasons),
    note: z.string().min(1).max(500).optional(),
    items: z
      .array(
        z.object({ sku: z.string().regex(/^[A-Z]{3}-\d{4}$/), quantity: z.number().int().min(1).max(99) }).strict(),
      )
      .min(1)
      .max(20),
  })
  .strict();

const validCalls: readonly unknown[] = [
  { order_id: 'SO20260901', amount_cents: 1999, reason: 'damaged', items: [{ sku: 'ABC-1234', quantity: 1 }] },
  {
    order_id: 'SO20260902',
    amount_cents: 25_000,
    reason: 'wrong_item',
    note: 'Customer received the blue kettle instead of the red one.',
    items: [
      { sku: 'KTL-0001', quantity: 1 },
      { sku: 'CUP-0420', quantity: 4 },
      { sku: 'TEA-9000', quantity: 2 },
    ],
  },
];

const invalidCalls: readonly unknown[] = [
  { order_id: 12345, amount_cents: -100, reason: 'damaged', items: [{ sku: 'ABC-1234', quantity: 1 }] },
  { order_id: 'SO2026', amount_cents: 1999, reason: 'changed my mind', items: [{ sku: 'abc', quantity: 0 }] },
  { order_id: 'SO20260901', reason: 'other', note: '', items: [] },
  { order_id: 'SO20260901', amount_cents: '1999', reason: 'damaged', items: [{ sku: 'ABC-1234' }], refund_all: true },
];

const rounds = 7;
const validIterations = 200_000;
const invalidIterations = 40_000;

/** Runs `body` for `iterations` calls and returns calls per second. */
function opsPerSecond(iterations: number, body: (index: number) => number): { ops: number; sink: number } {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) sink += body(index);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { ops: iterations / seconds, sink };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Medians of both contenders over `rounds` rounds, alternating which runs first. */
function compare(
  iterations: number,
  arbiter: (index: number) => number,
  zod: (index: number) => number,
): { arbiter: number; zod: number } {
  opsPerSecond(iterations, arbiter);
  opsPerSecond(iterations, zod);
  const arbiterOps: number[] = [];
  const zodOps: number[] = [];
  let sink = 0;
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [arbiter, zod] : [zod, arbiter];
    for (const body of order) {
      const result = opsPerSecond(iterations, body);
      sink += result.sink;
      (body === arbiter ? arbiterOps : zodOps).push(result.ops);
    }
  }
  if (sink === Number.NEGATIVE_INFINITY) console.log(sink);
  return { arbiter: median(arbiterOps), zod: median(zodOps) };
}

const format = (ops: number) => Math.round(ops).toLocaleString('en-US').padStart(11);

/**
 * Measures arbiter's validation against zod 4 and returns printable lines
 * and the speed ratios (`validation.valid`, `validation.invalid`: arbiter ÷ zod).
 *
 * @example
 * const { lines, ratios } = await runValidationBench();
 * console.log(lines.join('\n'), ratios['validation.valid']);
 */
export async function runValidationBench(): Promise<{ lines: string[]; ratios: Record<string, number> }> {
  const validate = compileToolValidator({ schema: refundSchema, toolName: 'create_refund' });
  for (const call of validCalls) {
    if (validate(call).length > 0 || !refundZod.safeParse(call).success)
      throw new Error('bench: a valid call is refused');
  }
  for (const call of invalidCalls) {
    if (validate(call).length === 0 || refundZod.safeParse(call).success)
      throw new Error('bench: an invalid call passes');
  }
  const pick = (calls: readonly unknown[], index: number) => calls[index % calls.length];

  const valid = compare(
    validIterations,
    (index) => validate(pick(validCalls, index)).length,
    (index) => (refundZod.safeParse(pick(validCalls, index)).success ? 0 : 1),
  );
  const invalid = compare(
    invalidIterations,
    (index) => {
      const issues = validate(pick(invalidCalls, index));
      const message = formatValidationMessage({ toolName: 'create_refund', issues });
      // Reading a character makes V8 lay the whole text out in memory, as sending it to a model would.
      return message.charCodeAt(message.length - 1);
    },
    (index) => {
      const result = refundZod.safeParse(pick(invalidCalls, index));
      return result.success ? 0 : result.error.issues.length;
    },
  );

  const validRatio = valid.arbiter / valid.zod;
  const invalidRatio = invalid.arbiter / invalid.zod;
  const verdict = (ratio: number, target: number) =>
    `${ratio.toFixed(1)}× zod (target ≥ ${target}×${ratio >= target ? ', met' : ', MISSED'})`;
  const lines = [
    `validation: create_refund schema (pattern, enum, bounds, optional field, nested array), median of ${rounds} rounds`,
    `  valid calls    arbiter ${format(valid.arbiter)} ops/s   zod safeParse ${format(valid.zod)} ops/s   valid: arbiter is ${verdict(validRatio, 3)}`,
    `  invalid calls  arbiter ${format(invalid.arbiter)} ops/s   zod safeParse ${format(invalid.zod)} ops/s   invalid (arbiter incl. full message, zod bare): arbiter is ${verdict(invalidRatio, 5)}`,
  ];
  return { lines, ratios: { 'validation.valid': validRatio, 'validation.invalid': invalidRatio } };
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainModule()) {
  const { lines } = await runValidationBench();
  console.log(lines.join('\n'));
}
