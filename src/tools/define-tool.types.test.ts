/**
 * The argument type `defineTool` reads from each way of writing a schema,
 * checked by the compiler (`npm run check` type-checks tests): every
 * `@ts-expect-error` below must meet an error, so a misspelled or wrongly
 * typed argument that compiled would fail the check ("Unused
 * '@ts-expect-error' directive").
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { JsonSchema } from '../core/json-schema.js';
import { defineTool } from './define-tool.js';
import type { ToolArguments, ToolDefinition } from './tool-types.js';

const base = { description: 'Look up an order. Not for shipments: use track_shipment.', sideEffect: 'read' } as const;
const orderPattern = '^SO\\d{8}$';

describe('defineTool argument types', () => {
  it('reads them from a JSON Schema written inline or as const', () => {
    const parameters = {
      type: 'object',
      properties: {
        order_id: { type: 'string', pattern: orderPattern },
        amount_cents: { type: 'integer', minimum: 1 },
        reason: { type: 'string', enum: ['damaged', 'other'] },
        note: { type: ['string', 'null'] },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
      },
      required: ['order_id', 'amount_cents', 'reason'],
      additionalProperties: false,
    } as const;
    const tool = defineTool({
      ...base,
      name: 'apply_refund',
      parameters,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          order_id: string;
          amount_cents: number;
          reason: 'damaged' | 'other';
          note?: string | null;
          lines?: { sku: string }[];
        }>();
        // @ts-expect-error misspelled argument
        void args.order_idd;
        // @ts-expect-error wrongly typed argument
        const amount: string = args.amount_cents;
        // @ts-expect-error an enum member the schema does not list
        if (args.reason === 'broken') void amount;
        return { refunded: args.amount_cents };
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<ToolArguments<typeof parameters>, { refunded: number }>>();
    defineTool({
      ...base,
      name: 'query_order',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      // @ts-expect-error misspelled in a destructuring pattern, schema written inline
      execute: ({ order_idd }) => order_idd,
    });
  });

  it('reads them from a zod 4 schema (its input type)', () => {
    defineTool({
      ...base,
      name: 'apply_refund',
      parameters: z.object({
        order_id: z.string().regex(/^SO\d{8}$/),
        amount_cents: z.int().min(1),
        note: z.string().optional(),
      }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ order_id: string; amount_cents: number; note?: string | undefined }>();
        // @ts-expect-error misspelled argument
        void args.order_idd;
        // @ts-expect-error wrongly typed argument
        const amount: string = args.amount_cents;
        return amount;
      },
    });
  });

  it('reads them from a valibot schema wrapped with toStandardJsonSchema', () => {
    defineTool({
      ...base,
      name: 'apply_refund',
      parameters: toStandardJsonSchema(
        v.object({ order_id: v.pipe(v.string(), v.regex(/^SO\d{8}$/)), amount_cents: v.pipe(v.number(), v.integer()) }),
      ),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ order_id: string; amount_cents: number }>();
        // @ts-expect-error misspelled argument
        void args.order_idd;
        // @ts-expect-error wrongly typed argument
        const amount: string = args.amount_cents;
        return amount;
      },
    });
  });

  it('reads them from an ArkType type', () => {
    defineTool({
      ...base,
      name: 'apply_refund',
      parameters: type({ order_id: /^SO\d{8}$/, amount_cents: 'number.integer >= 1', 'note?': 'string' }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ order_id: string; amount_cents: number; note?: string }>();
        // @ts-expect-error misspelled argument
        void args.order_idd;
        // @ts-expect-error wrongly typed argument
        const amount: string = args.amount_cents;
        return amount;
      },
    });
  });

  it('adds bound parameters, optional and of the principal field or function type', () => {
    defineTool({
      ...base,
      name: 'query_order',
      parameters: z.object({ order_id: z.string() }),
      boundParameters: { tenant_id: 'tenantId', user_roles: (principal) => principal.roles },
      dataScope: 'tenant',
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ order_id: string; tenant_id?: string; user_roles?: readonly string[] }>();
        // @ts-expect-error a bound parameter is absent when the run has no principal
        const tenant: string = args.tenant_id;
        return tenant;
      },
    });
    defineTool({
      ...base,
      name: 'query_order',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string' }, user_id: { type: 'integer' } },
        required: ['order_id', 'user_id'],
      },
      boundParameters: { user_id: 'userId', tenant_id: 'tenantId' },
      execute: (args) => expectTypeOf(args).toEqualTypeOf<{ order_id: string; user_id?: string; tenant_id?: string }>(),
    });
  });

  it('types the other functions of the tool and the result from the same schema', () => {
    defineTool({
      ...base,
      name: 'apply_refund',
      sideEffect: 'irreversible',
      parameters: z.object({ order_id: z.string(), amount_cents: z.int() }),
      approval: (args) => {
        expectTypeOf(args.amount_cents).toEqualTypeOf<number>();
        return { verdict: 'allow', rule: 'small' };
      },
      idempotencyKey: ({ order_id, amount_cents }) => `refund:${order_id}:${amount_cents}`,
      execute: ({ order_id }) => ({ refund_no: `RF-${order_id}` }),
      undo: (args, result) => {
        expectTypeOf(result).toEqualTypeOf<{ refund_no: string }>();
        // @ts-expect-error misspelled argument in undo
        void args.amount;
      },
    });
  });

  it('keeps the generic form and a schema typed only as JsonSchema', () => {
    const legacy = defineTool<{ order_id: string }>({
      ...base,
      name: 'query_order',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      execute: (args) => expectTypeOf(args).toEqualTypeOf<{ order_id: string }>(),
    });
    expectTypeOf(legacy).toEqualTypeOf<ToolDefinition<{ order_id: string }, unknown>>();
    const wide: JsonSchema = { type: 'object', properties: { order_id: { type: 'string' } } };
    defineTool({
      ...base,
      name: 'query_order',
      parameters: wide,
      execute: (args) => expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>(),
    });
  });
});
