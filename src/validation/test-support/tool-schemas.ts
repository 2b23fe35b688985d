import { z } from 'zod';
import type { JsonSchema } from '../../core/json-schema.js';

/** The seed example: three fields, each with a description and an example. */
export const applyRefundSchema = {
  type: 'object',
  properties: {
    order_id: {
      type: 'string',
      pattern: '^SO\\d{8}$',
      description: 'Order number: SO followed by 8 digits',
      examples: ['SO20260901'],
    },
    amount_cents: { type: 'integer', minimum: 1, description: 'Refund amount in cents', examples: [1999] },
    reason: {
      type: 'string',
      minLength: 1,
      description: "Why the refund is made, in the customer's words",
      examples: ['arrived damaged'],
    },
  },
  required: ['order_id', 'amount_cents', 'reason'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const refundReasons = ['damaged', 'not_received', 'wrong_item', 'other'] as const;

/** A realistic refund tool: pattern, enum, bounds, optional fields and a nested array of objects. */
export const createRefundSchema = {
  type: 'object',
  description: 'Refund some lines of an order.',
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
    reason: { type: 'string', enum: [...refundReasons], description: 'Why the customer wants a refund' },
    note: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'Free text for the support team',
      examples: ['Box was crushed'],
    },
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
    notify_customer: { type: 'boolean', description: 'Send the customer an e-mail', default: true },
  },
  required: ['order_id', 'amount_cents', 'reason', 'items'],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The same contract as `createRefundSchema`, written in zod 4 (string lengths in code points, as JSON Schema counts them). */
export const createRefundZod = z
  .object({
    order_id: z.string().regex(/^SO\d{8}$/u),
    amount_cents: z.number().int().min(1).max(1_000_000),
    reason: z.enum(refundReasons),
    note: z
      .string()
      .refine((text) => {
        const length = [...text].length;
        return length >= 1 && length <= 500;
      })
      .optional(),
    items: z
      .array(
        z
          .object({
            sku: z.string().regex(/^[A-Z]{3}-\d{4}$/u),
            quantity: z.number().int().min(1).max(99),
          })
          .strict(),
      )
      .min(1)
      .max(20),
    notify_customer: z.boolean().optional(),
  })
  .strict();

/** A valid call to `createRefundSchema`. */
export const validCreateRefund = {
  order_id: 'SO20260901',
  amount_cents: 1999,
  reason: 'damaged',
  note: 'Box was crushed',
  items: [
    { sku: 'ABC-1234', quantity: 1 },
    { sku: 'XYZ-0001', quantity: 2 },
  ],
  notify_customer: true,
};
