/**
 * The README's "Tools and validation" snippets, compiled and run: one tool
 * written four ways (a JSON Schema `as const`, zod 4, valibot, ArkType),
 * each argument type read from its schema, each sending the same JSON
 * Schema, each refusing the same broken call with the same message.
 */
import { defineTool, FatalToolError, type ToolContext, ToolRegistry, validateToolCall } from '@arbiter-runtime/core';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const orders = {
  find: ({ tenant_id, order_id }: { tenant_id: string; order_id: string }) => ({
    tenant_id,
    order_id,
    status: 'shipped',
  }),
};
const description =
  'Look up one order by number: status, items, amounts. Not for delivery progress: use track_shipment.';
/** The caller's tenant, or a refusal: bound parameters are absent when the run has no principal. */
const tenantOf = (tenant_id: string | undefined): string => {
  if (tenant_id === undefined)
    throw new FatalToolError({ code: 'unauthenticated', message: 'Ask the customer to sign in.' });
  return tenant_id;
};

// --- README: as const JSON Schema
const orderParameters = {
  type: 'object',
  properties: {
    order_id: {
      type: 'string',
      description: 'Order number: SO followed by 8 digits',
      pattern: '^SO\\d{8}$',
      examples: ['SO20260901'],
    },
    include_items: { type: 'boolean', description: 'Also list the items' },
  },
  required: ['order_id'],
  additionalProperties: false,
} as const;

const queryOrderJson = defineTool({
  name: 'query_order',
  description,
  parameters: orderParameters, // or written inline: the type is read either way
  boundParameters: { tenant_id: 'tenantId' }, // not in the schema: execute still gets tenant_id?: string
  sideEffect: 'read',
  execute: ({ order_id, include_items, tenant_id }) => ({
    ...orders.find({ tenant_id: tenantOf(tenant_id), order_id }),
    items: include_items === true ? [] : undefined,
  }),
});

// --- README: zod 4
const queryOrderZod = defineTool({
  name: 'query_order',
  description,
  parameters: z.strictObject({
    order_id: z
      .string()
      .regex(/^SO\d{8}$/)
      .meta({ description: 'Order number: SO followed by 8 digits', examples: ['SO20260901'] }),
    include_items: z.boolean().meta({ description: 'Also list the items' }).optional(),
  }),
  boundParameters: { tenant_id: 'tenantId' },
  sideEffect: 'read',
  execute: ({ order_id, include_items, tenant_id }) => ({
    ...orders.find({ tenant_id: tenantOf(tenant_id), order_id }),
    items: include_items === true ? [] : undefined,
  }),
});

// --- README: valibot, wrapped so it can give its JSON Schema
const queryOrderValibot = defineTool({
  name: 'query_order',
  description,
  parameters: toStandardJsonSchema(
    v.strictObject({
      order_id: v.pipe(
        v.string(),
        v.regex(/^SO\d{8}$/),
        v.description('Order number: SO followed by 8 digits'),
        v.examples(['SO20260901']),
      ),
      include_items: v.optional(v.pipe(v.boolean(), v.description('Also list the items'))),
    }),
  ),
  boundParameters: { tenant_id: 'tenantId' },
  sideEffect: 'read',
  execute: ({ order_id, include_items, tenant_id }) => ({
    ...orders.find({ tenant_id: tenantOf(tenant_id), order_id }),
    items: include_items === true ? [] : undefined,
  }),
});

// --- README: ArkType
const queryOrderArkType = defineTool({
  name: 'query_order',
  description,
  parameters: type({
    '+': 'reject',
    order_id: type(/^SO\d{8}$/).configure({
      description: 'Order number: SO followed by 8 digits',
      examples: ['SO20260901'],
    }),
    'include_items?': type('boolean').describe('Also list the items'),
  }),
  boundParameters: { tenant_id: 'tenantId' },
  sideEffect: 'read',
  execute: ({ order_id, include_items, tenant_id }) => ({
    ...orders.find({ tenant_id: tenantOf(tenant_id), order_id }),
    items: include_items === true ? [] : undefined,
  }),
});

// --- README: what JSON Schema cannot say is refused at definition
function refinedTool() {
  return defineTool({
    name: 'query_order',
    description,
    parameters: z.object({ order_id: z.string().refine((id) => id.startsWith('SO'), 'must start with SO') }),
    sideEffect: 'read',
    execute: ({ order_id }) => order_id,
  });
}

const context = { principal: { tenantId: 'shop', userId: 'C1001', roles: [] } } as unknown as ToolContext;
const tools = { json: queryOrderJson, zod: queryOrderZod, valibot: queryOrderValibot, arktype: queryOrderArkType };

describe("the README's tools written four ways", () => {
  for (const [library, tool] of Object.entries(tools)) {
    it(`sends the JSON Schema written by hand and refuses a broken call with its message (${library})`, async () => {
      const registry = new ToolRegistry().register(tool);
      const sent = registry.specs[0]?.function.parameters;
      const { required, ...rest } = orderParameters;
      expect({ ...sent, required: [...((sent?.['required'] as string[]) ?? [])] }).toEqual({
        ...rest,
        required: [...required],
      });
      const checked = validateToolCall({ registry, name: 'query_order', rawArguments: '{"order_id":"20260901"}' });
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.message).toContain('`order_id`');
      expect(await tool.execute({ order_id: 'SO20260901', tenant_id: 'shop' }, context)).toMatchObject({
        tenant_id: 'shop',
        status: 'shipped',
      });
    });
  }

  it('refuses a zod refinement at definition', () => {
    expect(refinedTool).toThrow(/field "order_id": a refinement/);
  });
});
