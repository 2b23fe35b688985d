import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { bindPrincipalParameters } from '../gate/bind-principal-parameters.js';
import { validateToolCall } from '../validation/validate-tool-call.js';
import { convertStandardSchema } from './convert-standard-schema.js';
import { defineTool } from './define-tool.js';
import type { StandardJsonSchema } from './standard-json-schema.js';
import { ToolRegistry } from './tool-registry.js';

/** The JSON Schema every library below is written to convert into. */
const refundJsonSchema = {
  type: 'object',
  properties: {
    order_id: { type: 'string', pattern: '^SO\\d{8}$', description: 'Order number: SO followed by 8 digits' },
    amount_cents: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    reason: { type: 'string', enum: ['damaged', 'other'] },
    note: { type: 'string', maxLength: 500 },
  },
  required: ['order_id', 'amount_cents', 'reason'],
} as const;

const libraries = {
  zod: z.object({
    order_id: z
      .string()
      .regex(/^SO\d{8}$/)
      .describe('Order number: SO followed by 8 digits'),
    amount_cents: z.int().min(1).max(1_000_000),
    reason: z.enum(['damaged', 'other']),
    note: z.string().max(500).optional(),
  }),
  valibot: toStandardJsonSchema(
    v.object({
      order_id: v.pipe(v.string(), v.regex(/^SO\d{8}$/), v.description('Order number: SO followed by 8 digits')),
      amount_cents: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
      reason: v.picklist(['damaged', 'other']),
      note: v.optional(v.pipe(v.string(), v.maxLength(500))),
    }),
  ),
  arktype: type({
    order_id: type(/^SO\d{8}$/).describe('Order number: SO followed by 8 digits'),
    amount_cents: '1 <= number.integer <= 1000000',
    reason: "'damaged' | 'other'",
    'note?': 'string <= 500',
  }),
};

/**
 * What each library converts the same parameters into: the JSON Schema above, but for how each writes the enum
 * (zod adds its type, ArkType leaves it out) and the order in which ArkType lists the required fields.
 */
const expectedConversions = {
  zod: {
    ...refundJsonSchema,
    properties: { ...refundJsonSchema.properties, reason: { type: 'string', enum: ['damaged', 'other'] } },
  },
  valibot: refundJsonSchema,
  arktype: {
    ...refundJsonSchema,
    properties: { ...refundJsonSchema.properties, reason: { enum: ['damaged', 'other'] } },
    required: ['amount_cents', 'order_id', 'reason'],
  },
};

/** The definition error a call throws; fails the test when it throws nothing or something else. */
function definitionError(define: () => unknown): ToolDefinitionError {
  try {
    define();
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolDefinitionError');
}

const refundTool = (parameters: StandardJsonSchema) =>
  defineTool({
    name: 'apply_refund',
    description: 'Refund an order. Not for order status: use query_order.',
    parameters,
    sideEffect: 'irreversible',
    execute: (args) => args,
  });

describe('a tool whose parameters are a Standard Schema', () => {
  for (const [library, schema] of Object.entries(libraries)) {
    it(`sends and enforces the JSON Schema converted from ${library}, once, at definition`, () => {
      const tool = refundTool(schema);
      expect(tool.parameters).toEqual(expectedConversions[library as keyof typeof libraries]);
      expect(tool.parameters).not.toHaveProperty('$schema');
      const registry = new ToolRegistry().register(tool);
      const registered = registry.get('apply_refund');
      expect(registered?.spec.function.parameters).toBe(tool.parameters);
      const refused = validateToolCall({
        registry,
        name: 'apply_refund',
        rawArguments: '{"order_id":"20260901","amount_cents":0,"reason":"broken","extra":1}',
      });
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.issues.map((issue) => issue.path).sort()).toEqual(['$.amount_cents', '$.order_id', '$.reason']);
      }
      const accepted = validateToolCall({
        registry,
        name: 'apply_refund',
        rawArguments: '{"order_id":"SO20260901","amount_cents":1999,"reason":"damaged"}',
      });
      expect(accepted.ok).toBe(true);
    });
  }

  it('binds parameters of a zod schema as of a JSON Schema: gone from what the model sees', () => {
    const tool = defineTool({
      name: 'query_order',
      description: 'Look up one order. Not for shipments: use track_shipment.',
      parameters: z.object({ tenant_id: z.string(), user_id: z.string(), order_id: z.string() }),
      boundParameters: { tenant_id: 'tenantId', user_id: 'userId' },
      sideEffect: 'read',
      execute: (args) => args,
    });
    const registry = new ToolRegistry().register(tool);
    expect(registry.get('query_order')?.spec.function.parameters).toEqual({
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
    });
    // A model that sends another tenant's and user's ids has them overwritten by the principal's.
    const checked = validateToolCall({
      registry,
      name: 'query_order',
      rawArguments: '{"order_id":"SO20260901","tenant_id":"other","user_id":"C9999"}',
    });
    if (!checked.ok) throw new Error(checked.message);
    const principal = { tenantId: 'shop', userId: 'C1001', roles: [] };
    expect(bindPrincipalParameters({ args: checked.args, tool: checked.tool, principal })).toEqual({
      order_id: 'SO20260901',
      tenant_id: 'shop',
      user_id: 'C1001',
    });
  });

  it('refuses a zod refinement at definition, naming the tool and the field', () => {
    const error = definitionError(() =>
      refundTool(
        z.object({
          order_id: z.string().refine((value) => value.startsWith('SO'), 'must start with SO'),
          amount_cents: z.int(),
        }),
      ),
    );
    expect(error.toolName).toBe('apply_refund');
    expect(error.field).toBe('order_id');
    expect(error.message).toMatchInlineSnapshot(`
      "tool "apply_refund": its zod parameters say what JSON Schema cannot, so the model would never be told and arbiter could not enforce it:
      - field "order_id": a refinement (refine, superRefine or check)
      Say it with JSON Schema keywords (pattern, minimum, maxLength, enum, …), or check it in execute and throw a RetryableToolError."
    `);
  });

  it('refuses a zod transform at definition, naming the tool and the field', () => {
    const error = definitionError(() =>
      refundTool(z.object({ lines: z.array(z.object({ sku: z.string().transform((sku) => sku.toUpperCase()) })) })),
    );
    expect(error.field).toBe('lines[].sku');
    expect(error.message).toContain(
      '- field "lines[].sku": a transform or pipe (transform, pipe, preprocess, a codec)',
    );
  });

  it('refuses every zod construct JSON Schema cannot say, each by its field', () => {
    const error = definitionError(() =>
      refundTool(
        z
          .object({
            trimmed: z.string().trim(),
            coerced: z.coerce.number(),
            piped: z.string().pipe(z.string().min(2)),
            preprocessed: z.preprocess((value) => value, z.string()),
            when: z.date(),
            anything: z.custom<string>((value) => typeof value === 'string'),
            free: z.unknown(),
          })
          .superRefine(() => {}),
      ),
    );
    expect(error.message.split('\n').filter((line) => line.startsWith('- '))).toEqual([
      '- field "trimmed": a transform (trim, toLowerCase, overwrite)',
      '- field "coerced": a coercion (z.coerce)',
      '- field "piped": a transform or pipe (transform, pipe, preprocess, a codec)',
      '- field "preprocessed": a transform or pipe (transform, pipe, preprocess, a codec)',
      '- field "when": a date schema, whose values JSON cannot carry',
      '- field "anything": a custom schema, whose values JSON cannot carry',
      '- the parameters object: a refinement (refine, superRefine or check)',
    ]);
  });

  it('refuses valibot checks, custom schemas and transforms, each by its field', () => {
    const error = definitionError(() =>
      refundTool(
        toStandardJsonSchema(
          v.object({
            order_id: v.pipe(
              v.string(),
              v.check((value) => value.startsWith('SO')),
            ),
            lines: v.array(
              v.object({
                sku: v.pipe(
                  v.string(),
                  v.transform((sku) => sku.length),
                ),
              }),
            ),
            anything: v.custom<string>((value) => typeof value === 'string'),
          }),
        ),
      ),
    );
    expect(error.toolName).toBe('apply_refund');
    expect(error.message.split('\n').filter((line) => line.startsWith('- '))).toEqual([
      '- field "order_id": The "check" action cannot be converted to JSON Schema',
      '- field "anything": The "custom" schema cannot be converted to JSON Schema',
      '- field "lines[].sku": The "transform" action cannot be converted to JSON Schema',
    ]);
  });

  it('refuses ArkType narrows, morphs and Dates, each by its field', () => {
    const error = definitionError(() =>
      refundTool(
        type({
          order_id: type('string').narrow((value) => value.startsWith('SO')),
          lines: type({ sku: type('string').pipe((sku) => sku.length) }).array(),
          when: 'Date',
        }),
      ),
    );
    expect(error.message.split('\n').filter((line) => line.startsWith('- '))).toEqual([
      '- field "order_id": a narrow (a custom predicate)',
      '- field "when": a Date, which JSON cannot carry',
      '- field "lines[].sku": a transform: what it produces differs from what it accepts',
    ]);
  });

  it('refuses a schema of another library whose converter throws, or whose output differs from its input', () => {
    const standard = (convert: (side: 'input' | 'output') => Record<string, unknown>): StandardJsonSchema => ({
      '~standard': {
        version: 1,
        vendor: 'homemade',
        jsonSchema: { input: () => convert('input'), output: () => convert('output') },
      },
    });
    const throwing = definitionError(() =>
      refundTool(
        standard(() => {
          throw new Error('cannot convert a Map');
        }),
      ),
    );
    expect(throwing.message).toBe(
      'tool "apply_refund": its homemade parameters cannot be said in JSON Schema: cannot convert a Map',
    );
    const transforming = definitionError(() =>
      refundTool(
        standard((side) => ({
          type: 'object',
          properties: { count: side === 'input' ? { type: 'string' } : { type: 'integer' } },
        })),
      ),
    );
    expect(transforming.field).toBe('count');
    // The same JSON Schema both ways, but for what an output may leave required or closed: accepted as is.
    const tool = refundTool(
      standard((side) => ({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { note: { type: 'string', default: 'none' } },
        ...(side === 'output' ? { required: ['note'], additionalProperties: false } : {}),
      })),
    );
    expect(tool.parameters).toEqual({ type: 'object', properties: { note: { type: 'string', default: 'none' } } });
  });

  it('refuses a Standard Schema that cannot give its JSON Schema, saying how to get one', () => {
    const error = definitionError(() => convertStandardSchema({ toolName: 'apply_refund', schema: v.object({}) }));
    expect(error.message).toBe(
      'tool "apply_refund": parameters is a valibot schema that cannot give its JSON Schema (no ~standard.jsonSchema): wrap it with toStandardJsonSchema from @valibot/to-json-schema',
    );
  });

  it('refuses a converter that answers with something other than an object', () => {
    const hostile = {
      '~standard': { version: 1, vendor: 'hostile', jsonSchema: { input: () => 'type: object', output: () => null } },
    } as unknown as StandardJsonSchema;
    expect(definitionError(() => refundTool(hostile)).message).toBe(
      'tool "apply_refund": its hostile parameters cannot be said in JSON Schema: it returned no object',
    );
  });

  it('converts a schema object once, whichever tools are defined with it', () => {
    let calls = 0;
    const counted: StandardJsonSchema = {
      '~standard': {
        version: 1,
        vendor: 'counted',
        jsonSchema: {
          input: () => {
            calls += 1;
            return { type: 'object', properties: { order_id: { type: 'string' } } };
          },
          output: () => ({ type: 'object', properties: { order_id: { type: 'string' } } }),
        },
      },
    };
    expect(refundTool(counted).parameters).toBe(refundTool(counted).parameters);
    expect(calls).toBe(1);
  });

  it('asks the converter once per side, at definition: a converter that changes later changes nothing', () => {
    let calls = 0;
    const drifting: StandardJsonSchema = {
      '~standard': {
        version: 1,
        vendor: 'drifting',
        jsonSchema: {
          input: () => {
            calls += 1;
            return { type: 'object', properties: { order_id: { type: calls > 2 ? 'number' : 'string' } } };
          },
          output: () => ({ type: 'object', properties: { order_id: { type: 'string' } } }),
        },
      },
    };
    const tool = refundTool(drifting);
    const registry = new ToolRegistry().register(tool);
    expect(calls).toBe(1);
    expect(registry.get('apply_refund')?.spec.function.parameters).toEqual({
      type: 'object',
      properties: { order_id: { type: 'string' } },
    });
  });

  it('tells a definition that bypasses defineTool to go through it', () => {
    const raw = { ...refundTool(libraries.zod), parameters: libraries.zod } as unknown as Parameters<
      ToolRegistry['register']
    >[0];
    expect(definitionError(() => new ToolRegistry().register(raw)).message).toBe(
      'tool "apply_refund": parameters is a zod schema: pass the definition through defineTool, which converts it into the JSON Schema the model is sent',
    );
  });
  it("leaves out what zod writes and nobody wrote: a safe integer's bounds, the pattern of a named format", () => {
    const parameters = z.object({
      email: z.email(),
      count: z.number().int(),
      age: z.int().min(0).max(150),
      id: z.uuid(),
    });
    const tool = defineTool({
      name: 'add_contact',
      description: 'Adds a contact. Not for orders: use query_order.',
      parameters,
      sideEffect: 'read',
      execute: () => 'ok',
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        count: { type: 'integer' },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        id: { type: 'string', format: 'uuid' },
      },
      required: ['email', 'count', 'age', 'id'],
    });
    const registry = new ToolRegistry().register(tool);
    const rawArguments = '{"email":"li.wei@","count":"two","age":200,"id":"x"}';
    const en = validateToolCall({ registry, name: 'add_contact', rawArguments });
    expect(en.ok ? '' : en.message).toMatchInlineSnapshot(`
      "The call to add_contact was not run: 4 problems with its arguments. Fix all of them and call add_contact again.
      - \`email\`: expected an email address. Valid example: "name@example.com". You sent the string "li.wei@".
      - \`count\`: expected an integer. You sent the string "two".
      - \`age\`: expected an integer >= 0 and <= 150. Valid example: 0. You sent the number 200.
      - \`id\`: expected a UUID. Valid example: "123e4567-e89b-12d3-a456-426614174000". You sent the string "x"."
    `);
    const zh = validateToolCall({ registry, name: 'add_contact', rawArguments, locale: 'zh-CN' });
    expect(zh.ok ? '' : zh.message).toMatchInlineSnapshot(`
      "调用 add_contact 未执行：参数有 4 处问题。请一次改正全部问题后重新调用 add_contact。
      - \`email\`：需要电子邮件地址。合法示例："name@example.com"。你传的是字符串 "li.wei@"。
      - \`count\`：需要整数。你传的是字符串 "two"。
      - \`age\`：需要大于等于 0 且小于等于 150 的整数。合法示例：0。你传的是数字 200。
      - \`id\`：需要 UUID。合法示例："123e4567-e89b-12d3-a456-426614174000"。你传的是字符串 "x"。"
    `);
    expect(
      validateToolCall({
        registry,
        name: 'add_contact',
        rawArguments: JSON.stringify({
          email: 'li.wei@example.com',
          count: 2,
          age: 30,
          id: '3f2c9a1b-7d4e-4c1a-9b2e-1a2b3c4d5e6f',
        }),
      }).ok,
    ).toBe(true);
  });
});
