import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Locale } from '../core/locale.js';
import { compileToolValidator } from './compile-tool-validator.js';
import { formatValidationMessage } from './format-validation-message.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { createRefundSchema, createRefundZod, refundReasons } from './test-support/index.js';
import type { ValidationIssue, ValidationIssueCode } from './validation-issue.js';

/** Things that must never reach a model: stack frames, our file paths, ajv's own wording and schema paths. */
const leaks: readonly RegExp[] = [
  /\n\s+at /,
  /node_modules/,
  /\.(?:ts|js):/,
  /\/src\//,
  /must NOT have|must have required|must be equal to|must match (?:format|pattern|a schema)|must be (?:string|integer|number|object|array|boolean|null|[<>]=?)/,
  /#\/(?:properties|\$defs|items|required)/,
];
/** What generated text may not contain, so that an echoed value cannot trip (or mask) the leak check. */
const markers = ['\n    at ', 'node_modules', '.ts:', '.js:', '/src/', '#/', 'must '];

const schemaCodes: ReadonlySet<ValidationIssueCode> = new Set([
  'missing_field',
  'wrong_type',
  'unknown_field',
  'no_matching_variant',
]);
const semanticCodes: ReadonlySet<ValidationIssueCode> = new Set([
  'pattern_mismatch',
  'invalid_enum',
  'invalid_const',
  'invalid_format',
  'too_small',
  'too_large',
  'too_short',
  'too_long',
  'too_few_items',
  'too_many_items',
  'duplicate_items',
  'not_multiple',
  'invalid_value',
]);

function assertModelFacing(text: string): void {
  for (const leak of leaks) {
    if (leak.test(text)) throw new Error(`model-facing text leaks ${leak}: ${text}`);
  }
}

function assertIssues(issues: readonly ValidationIssue[], toolName: string, locale: Locale): void {
  expect(issues.length).toBeGreaterThan(0);
  const paths = new Set<string>();
  for (const issue of issues) {
    expect(issue.path.startsWith('$')).toBe(true);
    expect(paths.has(issue.path)).toBe(false);
    paths.add(issue.path);
    const expectedLayer = schemaCodes.has(issue.code) ? 'schema' : semanticCodes.has(issue.code) ? 'semantic' : 'call';
    expect(issue.layer).toBe(expectedLayer);
    expect(issue.message).not.toContain('\n');
    expect(issue.message).toMatch(/^`[^`\n]+`(?:: |：)/u);
    assertModelFacing(issue.message);
  }
  const message = formatValidationMessage({ toolName, issues, locale });
  const lines = message.split('\n');
  expect(lines).toHaveLength(1 + Math.min(issues.length, 20) + (issues.length > 20 ? 1 : 0));
  assertModelFacing(message);
}

const clean = (text: string) => !markers.some((marker) => text.includes(marker));

const junkString = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(
      '',
      ' ',
      'NaN',
      'Infinity',
      '-Infinity',
      '1e309',
      '-0',
      '0x1F',
      ' 12 ',
      'null',
      'undefined',
      '{}',
      '[]',
      'SO2026090',
      'SO202609011',
      'so20260901',
      'ＳＯ２０２６０９０１',
      'SO2026\u00a00901',
      'abc-1234',
      '\u0000\u0001\u001f',
      '\ud800',
      '💥'.repeat(40),
      'a'.repeat(600),
      '<script>alert(1)</script>',
      "'; DROP TABLE orders; --",
    ),
  )
  .filter(clean);

const junkNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 0.5, 1.5, -100, 1e21, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, 1_000_001, 100),
);

const prototypeKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'order_id ',
  'ORDER_ID',
);

const fieldKey = fc.oneof(prototypeKey, junkString);

/** Builds an object with own properties only, also for `__proto__`. */
function objectFrom(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return target;
}

const deepNesting = fc
  .tuple(
    fc.integer({ min: 1, max: 60 }),
    fc.constantFrom('object', 'array', 'mixed'),
    fc.constantFrom('__proto__', 'a', 'items'),
  )
  .map(([depth, shape, key]) => {
    let value: unknown = 'bottom';
    for (let level = 0; level < depth; level += 1) {
      const asArray = shape === 'array' || (shape === 'mixed' && level % 2 === 0);
      value = asArray ? [value] : objectFrom([[key, value]]);
    }
    return value;
  });

const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  junkString,
  junkNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  deepNesting,
  fc.array(fc.oneof(junkString, junkNumber), { maxLength: 5 }),
);

type Slot = { readonly present: false } | { readonly present: true; readonly value: unknown };

/** Usually a valid value; sometimes missing, just off (`nearMisses`), or junk. */
function slot(valid: fc.Arbitrary<unknown>, nearMisses: readonly unknown[] = []): fc.Arbitrary<Slot> {
  const present = (value: unknown): Slot => ({ present: true, value });
  return fc.oneof(
    { weight: 16, arbitrary: valid.map(present) },
    { weight: 1, arbitrary: fc.constant<Slot>({ present: false }) },
    { weight: 1, arbitrary: junkValue.map(present) },
    { weight: nearMisses.length === 0 ? 0 : 1, arbitrary: fc.constantFrom(...nearMisses, undefined).map(present) },
  );
}

function objectOfSlots(
  slots: Record<string, Slot>,
  extras: readonly (readonly [string, unknown])[],
): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(slots)) if (value.present) entries.push([key, value.value]);
  return objectFrom([...entries, ...extras]);
}

const extraFields = fc.oneof(
  { weight: 12, arbitrary: fc.constant([]) },
  { weight: 1, arbitrary: fc.array(fc.tuple(fieldKey, junkValue), { minLength: 1, maxLength: 3 }) },
);

const item = fc
  .tuple(
    fc.record({
      sku: slot(fc.stringMatching(/^[A-Z]{3}-\d{4}$/), ['ABC-123', 'abc-1234', 'ABC-1234 ']),
      quantity: slot(fc.integer({ min: 1, max: 99 }), [0, 100, 2.5, '2']),
    }),
    extraFields,
  )
  .map(([slots, extras]) => objectOfSlots(slots, extras));

const refundCall = fc
  .tuple(
    fc.record({
      order_id: slot(fc.stringMatching(/^SO\d{8}$/), ['SO2026090', 'so20260901', 'SO20260901\n', 20260901]),
      amount_cents: slot(fc.integer({ min: 1, max: 1_000_000 }), [0, 1_000_001, 19.99, '1999']),
      reason: slot(fc.constantFrom(...refundReasons), ['Damaged', 'refund', '']),
      note: slot(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter(clean), ['', 'x'.repeat(501)]),
      items: slot(fc.array(item, { minLength: 1, maxLength: 4 }), [
        [],
        Array.from({ length: 21 }, () => ({ sku: 'ABC-1234', quantity: 1 })),
      ]),
      notify_customer: slot(fc.boolean(), ['true', 1]),
    }),
    extraFields,
  )
  .map(([slots, extras]) => objectOfSlots(slots, extras));

const payload: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: refundCall },
  { weight: 1, arbitrary: junkValue },
  { weight: 1, arbitrary: deepNesting },
);

/** How the arguments string reaches us: intact, cut off, with junk spliced in, or nonsense. */
const rawForm = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'intact' as const }) },
  { weight: 2, arbitrary: fc.nat().map((at) => ({ kind: 'cut' as const, at })) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), junkString).map(([at, junk]) => ({ kind: 'spliced' as const, at, junk })),
  },
  { weight: 1, arbitrary: junkString.map((text) => ({ kind: 'replaced' as const, text })) },
);

function rawText(value: unknown, form: RawForm): string {
  const json = JSON.stringify(value) ?? 'undefined';
  switch (form.kind) {
    case 'intact':
      return json;
    case 'cut':
      return json.slice(0, form.at % (json.length + 1));
    case 'spliced': {
      const at = form.at % (json.length + 1);
      return json.slice(0, at) + form.junk + json.slice(at);
    }
    case 'replaced':
      return form.text;
  }
}

type RawForm =
  | { readonly kind: 'intact' }
  | { readonly kind: 'cut'; readonly at: number }
  | { readonly kind: 'spliced'; readonly at: number; readonly junk: string }
  | { readonly kind: 'replaced'; readonly text: string };

const validators = {
  en: compileToolValidator({ schema: createRefundSchema, toolName: 'create_refund', locale: 'en' }),
  'zh-CN': compileToolValidator({ schema: createRefundSchema, toolName: 'create_refund', locale: 'zh-CN' }),
} satisfies Record<Locale, unknown>;

describe('validation fuzz', () => {
  it('rejects every invalid payload with issues and accepts exactly the valid ones, for 10,000 payloads', () => {
    let executed = 0;
    let refused = 0;
    const execute = (args: Record<string, unknown>) => {
      if (!createRefundZod.safeParse(args).success)
        throw new Error(`execute ran with invalid args: ${JSON.stringify(args)}`);
      executed += 1;
    };
    /** The runner's order of events: parse, validate, and only then execute. */
    const runTool = (raw: string, locale: Locale): string | undefined => {
      const parsed = parseToolArguments({ toolName: 'create_refund', raw, schema: createRefundSchema, locale });
      if (!parsed.ok) {
        expect(['invalid_json', 'not_an_object']).toContain(parsed.issue.code);
        assertIssues([parsed.issue], 'create_refund', locale);
        return parsed.issue.message;
      }
      const issues = validators[locale](parsed.value);
      expect(issues.length === 0).toBe(createRefundZod.safeParse(parsed.value).success);
      if (issues.length > 0) {
        assertIssues(issues, 'create_refund', locale);
        return formatValidationMessage({ toolName: 'create_refund', issues, locale });
      }
      execute(parsed.value);
      return undefined;
    };

    fc.assert(
      fc.property(payload, rawForm, fc.constantFrom<Locale>('en', 'zh-CN'), (args, form, locale) => {
        const issues = validators[locale](args);
        const independentlyValid = createRefundZod.safeParse(args).success;
        expect(issues.length === 0).toBe(independentlyValid);
        if (issues.length > 0) {
          refused += 1;
          assertIssues(issues, 'create_refund', locale);
        }

        const raw = rawText(args, form);
        const refusal = runTool(raw, locale);
        const parsesAsObject = (() => {
          try {
            const value: unknown = JSON.parse(raw);
            return typeof value === 'object' && value !== null && !Array.isArray(value);
          } catch {
            return raw.trim() === '';
          }
        })();
        if (!parsesAsObject) expect(refusal).toBeDefined();
      }),
      { numRuns: 10_000 },
    );
    // Both outcomes must have been exercised for the property to mean anything.
    expect(executed).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(1000);
  }, 120_000);

  it('flags a message that leaks a stack trace, a file path or ajv wording', () => {
    const leaked = [
      'expected a string.\n    at validate (/app/node_modules/ajv/dist/core.js:12:3)',
      'see /work/src/validation/compile-tool-validator.ts:40',
      '`a`: must NOT have fewer than 1 characters',
      '`a`: failed at #/properties/a/minLength',
    ];
    for (const text of leaked) expect(() => assertModelFacing(text)).toThrow(/leaks/);
  });
});
