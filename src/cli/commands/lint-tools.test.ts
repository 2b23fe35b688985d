import { describe, expect, it } from 'vitest';
import { countToolSpecTokens } from '../../context/count-tokens.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { lintToolSpec, lintTools } from './lint-tools.js';

const fixtures = 'test/fixtures';

function spec(name: string, description: string, parameters: ToolSpec['function']['parameters'] = { type: 'object' }) {
  return { type: 'function', function: { name, description, parameters } } as const satisfies ToolSpec;
}

describe('lintTools', () => {
  it("passes the shop's tools with no warnings and prints what they cost per turn", () => {
    const result = lintTools({ toolsFile: 'examples/shop/shop-tools.openai.json' });
    expect(result.stderr).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.join('\n')).toMatchInlineSnapshot(`
      "query_order: 128 tokens per turn
      track_shipment: 120 tokens per turn
      query_refund: 181 tokens per turn
      add_order_note: 158 tokens per turn
      apply_refund: 268 tokens per turn
      total: 855 tokens per turn for 5 tools"
    `);
  });

  it('reports the per-tool tokens and their total in --json mode', () => {
    const result = lintTools({ toolsFile: 'examples/shop/shop-tools.openai.json', json: true });
    expect(result.stdout).toHaveLength(1);
    const report = JSON.parse(result.stdout[0] ?? '') as {
      tools: { name: string; tokens: number; warnings: unknown[] }[];
      totalTokens: number;
      toolCount: number;
    };
    expect(report.toolCount).toBe(5);
    expect(report.totalTokens).toBe(report.tools.reduce((sum, tool) => sum + tool.tokens, 0));
    for (const tool of report.tools) {
      expect(tool.warnings).toEqual([]);
      expect(tool.tokens).toBeGreaterThan(60);
      expect(tool.tokens).toBeLessThan(300);
    }
  });

  it('warns about parameters without a description at any depth and unconstrained id fields', () => {
    const result = lintTools({ toolsFile: `${fixtures}/missing-descriptions-tools.json` });
    expect(result.exitCode).toBe(1);
    expect(result.stdout.join('\n')).toMatchInlineSnapshot(`
      "create_return: 123 tokens per turn
        warning: parameter "order_id" has no description: say what it is and, for a format, give an example
        warning: parameter "order_id" looks like an id, code or date but has neither "pattern"/"format" nor "examples": add a pattern and an example value
        warning: parameter "items[].sku" looks like an id, code or date but has neither "pattern"/"format" nor "examples": add a pattern and an example value
        warning: parameter "items[].quantity" has no description: say what it is and, for a format, give an example
      total: 123 tokens per turn for 1 tool"
    `);
  });

  it('warns about names that are not verb_object', () => {
    const result = lintTools({ toolsFile: `${fixtures}/bad-names-tools.json` });
    expect(result.exitCode).toBe(1);
    expect(result.stdout.join('\n')).toMatchInlineSnapshot(`
      "orderLookup: 39 tokens per turn
        warning: name "orderLookup" is not lowercase snake_case verb_object, e.g. "query_order"
      handler2: 37 tokens per turn
        warning: name "handler2" is one word; name the action and its object, e.g. "query_order"
      refunds: 38 tokens per turn
        warning: name "refunds" is one word; name the action and its object, e.g. "query_order"
      order_status: 37 tokens per turn
        warning: name "order_status" does not start with a verb ("order"); put the action first, e.g. "query_order"
      total: 151 tokens per turn for 4 tools"
    `);
  });

  it('warns about sibling tools whose descriptions never say when not to use them', () => {
    const result = lintTools({ toolsFile: `${fixtures}/no-when-not-tools.json`, json: true });
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout[0] ?? '') as { tools: { name: string; warnings: { code: string }[] }[] };
    expect(report.tools.map((tool) => [tool.name, tool.warnings.map((warning) => warning.code)])).toEqual([
      ['query_order', ['no_when_not_to_use']],
      ['track_order', ['no_when_not_to_use']],
      ['send_invoice', []],
    ]);
  });

  it('exits 2 on a schema the registry refuses, naming the file and the tool', () => {
    const result = lintTools({ toolsFile: `${fixtures}/invalid-schema-tools.json` });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toEqual([]);
    expect(result.stderr).toHaveLength(1);
    expect(result.stderr[0]).toMatch(/^test\/fixtures\/invalid-schema-tools\.json: .*query_order/);
  });

  it('exits 2 on a duplicate tool name', () => {
    const result = lintTools({ toolsFile: `${fixtures}/duplicate-names-tools.json` });
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: ['test/fixtures/duplicate-names-tools.json: tool "query_order" is registered twice'],
    });
  });

  it('exits 2 on a file that is not JSON, naming the file and the line', () => {
    const result = lintTools({ toolsFile: `${fixtures}/malformed-tools.txt` });
    expect(result.exitCode).toBe(2);
    expect(result.stderr[0]).toMatch(/^test\/fixtures\/malformed-tools\.txt:7: not valid JSON/);
  });

  it('exits 2 on an unreadable path', () => {
    expect(lintTools({ toolsFile: `${fixtures}/nope.json` })).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: ['test/fixtures/nope.json: cannot read the file (ENOENT)'],
    });
  });
});

describe('lintToolSpec', () => {
  const order = spec('query_order', 'Look up an order. Not for parcels: use track_shipment.');

  it('counts the tokens of the definition', () => {
    expect(lintToolSpec({ spec: order, siblings: [order] }).tokens).toBe(countToolSpecTokens(order));
  });

  it('accepts a lone tool without a "when not" sentence: it has no sibling to confuse', () => {
    const lone = spec('query_order', 'Look up an order.');
    expect(lintToolSpec({ spec: lone, siblings: [lone] }).warnings).toEqual([]);
  });

  it('accepts a description that names a sibling tool, in any language', () => {
    const shipment = spec('track_shipment', '查询物流轨迹；订单详情请用 query_order。');
    const alsoShipment = spec('track_parcel', 'Parcel events; for the order itself call query_order.');
    expect(lintToolSpec({ spec: shipment, siblings: [order, shipment] }).warnings).toEqual([]);
    expect(lintToolSpec({ spec: alsoShipment, siblings: [order, alsoShipment] }).warnings).toEqual([]);
  });

  it('suggests the siblings that share a word of the name', () => {
    const refund = spec('query_refund', 'Refund status.');
    const [warning] = lintToolSpec({ spec: refund, siblings: [order, refund, spec('send_email', 'x')] }).warnings;
    expect(warning?.message).toBe(
      'description never says when not to use query_refund: name the sibling tool to use instead (query_order), e.g. "Not for …: use query_order."',
    );
  });

  it('checks id, date and code-like strings by name, camelCase included, and accepts enum, format or examples', () => {
    const tool = spec('create_booking', 'Book a table.', {
      type: 'object',
      properties: {
        guestEmail: { type: 'string', description: 'Email' },
        promo_code: { type: 'string', description: 'Code', enum: ['A', 'B'] },
        booking_date: { type: 'string', description: 'Date', format: 'date' },
        table_no: { type: 'string', description: 'Table', examples: ['T12'] },
        party_size: { type: 'integer', description: 'People' },
        identity_hint: { type: 'string', description: 'Not an id: "identity" is a different word' },
        created_at: { type: ['string', 'null'], description: 'When' },
      },
    });
    expect(lintToolSpec({ spec: tool, siblings: [tool] }).warnings.map((warning) => warning.path)).toEqual([
      'guestEmail',
      'created_at',
    ]);
  });

  it('walks nested objects, array items, combinators, additionalProperties and $defs', () => {
    const tool = spec('update_cart', 'Set cart lines.', {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          description: 'Lines',
          items: { type: 'object', properties: { quantity: { type: 'integer' } } },
        },
        when: { description: 'Time', anyOf: [{ type: 'object', properties: { minutes: { type: 'integer' } } }] },
        options: {
          type: 'object',
          description: 'Options',
          additionalProperties: { type: 'object', properties: { value: {} } },
        },
        address: { $ref: '#/$defs/address' },
      },
      $defs: { address: { type: 'object', properties: { city: { type: 'string' } } } },
    });
    expect(
      lintToolSpec({ spec: tool, siblings: [tool] })
        .warnings.filter((warning) => warning.code === 'missing_description')
        .map((warning) => warning.path),
    ).toEqual(['items[].quantity', 'when.minutes', 'options{}.value', '$defs.address.city']);
  });

  it.each([
    ['query_order', undefined],
    ['queryOrder', 'is not lowercase snake_case verb_object, e.g. "query_order"'],
    ['Query_Order', 'is not lowercase snake_case verb_object, e.g. "query_order"'],
    ['orders', 'is one word; name the action and its object, e.g. "query_order"'],
    ['order_lookup', 'does not start with a verb ("order"); put the action first, e.g. "query_order"'],
    ['get_order_v2', undefined],
  ])('judges the name %s', (name, problem) => {
    const tool = spec(name, 'x');
    const warning = lintToolSpec({ spec: tool, siblings: [tool] }).warnings.find(
      (entry) => entry.code === 'name_not_verb_object',
    );
    expect(warning?.message).toBe(problem === undefined ? undefined : `name "${name}" ${problem}`);
  });
});

describe('lintToolSpec on enums no value can satisfy', () => {
  it('warns when type and enum exclude each other, or the enum sits on an array, naming the field', () => {
    const parameters = {
      type: 'object',
      properties: {
        enabled: { type: 'boolean', description: 'On or off.', enum: ['true', 'false'] },
        level: { type: 'integer', description: 'Level.', enum: ['1', '2'] },
        tags: { type: 'array', description: 'Tags.', items: { type: 'string' }, enum: ['red', 'blue'] },
        mode: { type: 'string', description: 'Mode.', enum: ['fast', 'slow'] },
        count: { type: ['integer', 'null'], description: 'Count.', enum: [1, 2, null] },
        pair: { type: 'array', description: 'Pair.', enum: [['a', 'b']] },
      },
    } as const;
    const warnings = lintToolSpec({ spec: spec('set_mode', 'Sets the mode.', parameters), siblings: [] }).warnings;
    expect(warnings.map((warning) => `${warning.code} ${warning.path}: ${warning.message}`)).toMatchInlineSnapshot(
      `
      [
        "enum_unsatisfiable enabled: parameter "enabled" can never be satisfied: "type" is "boolean" but no "enum" value ("true", "false") is of that type; make them agree",
        "enum_unsatisfiable level: parameter "level" can never be satisfied: "type" is "integer" but no "enum" value ("1", "2") is of that type; make them agree",
        "enum_unsatisfiable tags: parameter "tags" can never be satisfied: "enum" ("red", "blue") is on the array itself and holds no array, so no value can pass; move the enum into "items"",
      ]
    `,
    );
  });
});

describe('lintToolSpec on identities the model would choose', () => {
  it('warns about a top-level user_id or tenant_id the model fills, naming the binding to use instead', () => {
    const parameters = {
      type: 'object',
      properties: {
        order_id: { type: 'string', description: 'Order number.', pattern: '^SO\\d{8}$' },
        user_id: { type: 'string', description: 'The customer.', examples: ['C1001'] },
        tenantId: { type: 'string', description: 'The shop.', examples: ['shop'] },
        recipient: {
          type: 'object',
          description: 'Who receives it.',
          properties: { user_id: { type: 'string', description: 'A recipient.', examples: ['C1002'] } },
        },
        username: { type: 'string', description: 'A display name.' },
      },
    } as const;
    const warnings = lintToolSpec({
      spec: spec('query_order', 'Looks up an order.', parameters),
      siblings: [],
    }).warnings;
    expect(warnings.map((warning) => `${warning.code} ${warning.path}: ${warning.message}`)).toMatchInlineSnapshot(`
      [
        "identity_from_model user_id: parameter "user_id" looks like the caller's identity, which the model would choose here: bind it from the principal and bind the tenant with the user, e.g. boundParameters: { tenant_id: 'tenantId', user_id: 'userId' } with dataScope 'tenant_user', so it leaves the schema the model sees",
        "identity_from_model tenantId: parameter "tenantId" looks like the caller's tenant, which the model would choose here: bind it from the principal and bind the tenant with the user, e.g. boundParameters: { tenant_id: 'tenantId', user_id: 'userId' } with dataScope 'tenant_user', so it leaves the schema the model sees",
      ]
    `);
  });

  it("passes the shop's exported tools, whose tenant_id and user_id are bound and so absent", () => {
    const result = lintTools({ toolsFile: 'examples/shop/shop-tools.openai.json', json: true });
    const report = JSON.parse(result.stdout[0] ?? '') as { tools: { warnings: { code: string }[] }[] };
    expect(report.tools.flatMap((tool) => tool.warnings.map((warning) => warning.code))).toEqual([]);
  });
});
