import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { stripStrictNulls } from '../validation/strip-strict-nulls.js';
import { toStrictTool, toStrictTools } from './strict-tools.js';

const tool = (name: string, parameters: JsonSchema): ToolSpec => ({
  type: 'function',
  function: { name, description: `${name}: a test tool.`, parameters },
});

const createShipment = tool('create_shipment', {
  type: 'object',
  properties: {
    order_id: { type: 'string', description: 'SO + 8 digits', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
    note: { type: 'string', maxLength: 200 },
    priority: { enum: ['low', 'high'] },
    address: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
      required: ['city'],
    },
    items: {
      type: 'array',
      uniqueItems: true,
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
        required: ['sku'],
      },
    },
    tag: { $ref: '#/$defs/tag', description: 'A label' },
  },
  required: ['order_id', 'items'],
  $defs: { tag: { type: 'string', enum: ['gift', 'fragile'] } },
});

describe('toStrictTools', () => {
  it('makes every property required, optional ones nullable, every object closed, at every depth', () => {
    const [strict] = toStrictTools([createShipment]);
    expect(strict).toMatchInlineSnapshot(`
      {
        "function": {
          "description": "create_shipment: a test tool.",
          "name": "create_shipment",
          "parameters": {
            "$defs": {
              "tag": {
                "enum": [
                  "gift",
                  "fragile",
                ],
                "type": "string",
              },
            },
            "additionalProperties": false,
            "properties": {
              "address": {
                "additionalProperties": false,
                "properties": {
                  "city": {
                    "type": "string",
                  },
                  "zip": {
                    "type": [
                      "string",
                      "null",
                    ],
                  },
                },
                "required": [
                  "city",
                  "zip",
                ],
                "type": [
                  "object",
                  "null",
                ],
              },
              "items": {
                "items": {
                  "additionalProperties": false,
                  "properties": {
                    "quantity": {
                      "minimum": 1,
                      "type": [
                        "integer",
                        "null",
                      ],
                    },
                    "sku": {
                      "type": "string",
                    },
                  },
                  "required": [
                    "sku",
                    "quantity",
                  ],
                  "type": "object",
                },
                "type": "array",
              },
              "note": {
                "maxLength": 200,
                "type": [
                  "string",
                  "null",
                ],
              },
              "order_id": {
                "description": "SO + 8 digits",
                "examples": [
                  "SO20260901",
                ],
                "pattern": "^SO\\d{8}$",
                "type": "string",
              },
              "priority": {
                "enum": [
                  "low",
                  "high",
                  null,
                ],
              },
              "tag": {
                "anyOf": [
                  {
                    "$ref": "#/$defs/tag",
                  },
                  {
                    "type": "null",
                  },
                ],
                "description": "A label",
              },
            },
            "required": [
              "order_id",
              "note",
              "priority",
              "address",
              "items",
              "tag",
            ],
            "type": "object",
          },
          "strict": true,
        },
        "type": "function",
      }
    `);
  });

  it('keeps the order of tools and of properties, and leaves the input untouched', () => {
    const before = structuredClone(createShipment);
    const other = tool('query_order', { type: 'object', properties: { order_id: { type: 'string' } } });
    const strict = toStrictTools([createShipment, other]);
    expect(strict.map((spec) => spec.function.name)).toEqual(['create_shipment', 'query_order']);
    expect(Object.keys(strict[0]?.function.parameters['properties'] ?? {})).toEqual(
      Object.keys(createShipment.function.parameters['properties'] ?? {}),
    );
    expect(createShipment).toEqual(before);
    expect(JSON.stringify(toStrictTools([createShipment, other]))).toBe(JSON.stringify(strict));
  });

  it('drops keywords strict mode rejects when dropping them only loosens the schema', () => {
    const { tool: strict, problem } = toStrictTool(
      tool('tag_items', {
        type: 'object',
        properties: { skus: { type: 'array', items: { type: 'string' }, uniqueItems: true, contains: { const: 'A' } } },
        required: ['skus'],
        not: { required: ['forbidden'] },
      }),
    );
    expect(problem).toBeUndefined();
    expect(strict.function.parameters).toEqual({
      type: 'object',
      properties: { skus: { type: 'array', items: { type: 'string' } } },
      required: ['skus'],
      additionalProperties: false,
    });
  });

  it('sends a tool it cannot express strictly as it is, with strict: false, and says why', () => {
    const cases = [
      tool('set_metadata', { type: 'object', properties: { metadata: { type: 'object' } } }),
      tool('set_labels', {
        type: 'object',
        properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      }),
      tool('set_headers', { type: 'object', patternProperties: { '^x-': { type: 'string' } } }),
    ];
    const problems = cases.map((spec) => {
      const { tool: sent, problem } = toStrictTool(spec);
      expect(sent.function.strict).toBe(false);
      expect(sent.function.parameters).toBe(spec.function.parameters);
      return problem;
    });
    expect(problems).toMatchInlineSnapshot(`
      [
        "the object at \`properties/metadata\` declares no properties (a free-form object); strict mode would only allow {}",
        "Object schema at \`properties/labels\` must set \`additionalProperties: false\` to be compatible with strict Structured Outputs.",
        "Schema at \`<root>\` uses unsupported keyword \`patternProperties\` and cannot be represented in strict Structured Outputs.",
      ]
    `);
  });
});

describe('stripStrictNulls', () => {
  const schema = createShipment.function.parameters;

  it('removes a null sent for an optional field, at every depth, and keeps everything else', () => {
    const args = {
      order_id: 'SO20260901',
      note: null,
      priority: null,
      address: { city: 'Shenzhen', zip: null },
      items: [{ sku: 'A1', quantity: null }],
      tag: null,
    };
    expect(stripStrictNulls(args, schema)).toEqual({
      order_id: 'SO20260901',
      address: { city: 'Shenzhen' },
      items: [{ sku: 'A1' }],
    });
    expect(args.note).toBeNull();
  });

  it('keeps a null in a required field and in a field that accepts null, for validation to judge', () => {
    const nullable = {
      type: 'object',
      properties: { order_id: { type: 'string' }, coupon: { type: ['string', 'null'] } },
      required: ['order_id'],
    };
    expect(stripStrictNulls({ order_id: null, coupon: null }, nullable)).toEqual({ order_id: null, coupon: null });
  });

  it('leaves unknown keys and non-object values alone', () => {
    expect(stripStrictNulls({ order_id: 'SO20260901', extra: null }, schema)).toEqual({
      order_id: 'SO20260901',
      extra: null,
    });
  });

  it('follows the object branch of a union that declares every key sent', () => {
    const union = {
      type: 'object',
      properties: {
        target: {
          anyOf: [
            {
              type: 'object',
              properties: { order_id: { type: 'string' }, note: { type: 'string' } },
              required: ['order_id'],
            },
            { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
          ],
        },
      },
      required: ['target'],
    };
    expect(stripStrictNulls({ target: { order_id: 'SO20260901', note: null } }, union)).toEqual({
      target: { order_id: 'SO20260901' },
    });
  });

  it('round-trips: what a strict model sends validates strictly and maps back to what was meant', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const strictSchema = toStrictTool(createShipment).tool.function.parameters;
    const validStrict = ajv.compile(strictSchema);
    const validOriginal = ajv.compile(schema);
    const item = fc.record(
      { sku: fc.string({ maxLength: 4 }), quantity: fc.integer({ min: 1, max: 9 }) },
      { requiredKeys: ['sku'], noNullPrototype: true },
    );
    const meant = fc.record(
      {
        order_id: fc.stringMatching(/^SO\d{8}$/),
        note: fc.string({ maxLength: 20 }),
        priority: fc.constantFrom('low', 'high'),
        address: fc.record({ city: fc.string(), zip: fc.string() }, { requiredKeys: ['city'], noNullPrototype: true }),
        items: fc.uniqueArray(item, { maxLength: 3, selector: (entry) => entry.sku }),
        tag: fc.constantFrom('gift', 'fragile'),
      },
      { requiredKeys: ['order_id', 'items'], noNullPrototype: true },
    );
    fc.assert(
      fc.property(meant, (args) => {
        expect(validOriginal(args)).toBe(true);
        const sent = withNulls(args, strictSchema, strictSchema) as Record<string, unknown>;
        expect(validStrict(sent)).toBe(true);
        expect(stripStrictNulls(sent, schema)).toEqual(args);
      }),
    );
  });
});

/** What a strict-mode model sends: every absent property as null. */
function withNulls(value: unknown, schema: JsonSchema, root: JsonSchema): unknown {
  if (Array.isArray(value)) {
    const items = schema['items'] as JsonSchema | undefined;
    return items === undefined ? value : value.map((entry) => withNulls(entry, items, root));
  }
  const properties = schema['properties'] as Record<string, JsonSchema> | undefined;
  if (typeof value !== 'object' || value === null || properties === undefined) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [
      key,
      key in record ? withNulls(record[key], property, root) : null,
    ]),
  );
}
