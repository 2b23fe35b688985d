import { describe, expect, it } from 'vitest';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { defineTool } from './define-tool.js';
import { fromOpenAiTool } from './from-openai-tool.js';
import { ToolRegistry } from './tool-registry.js';
import type { ToolDefinition } from './tool-types.js';

const lookup = (name: string, groups: string[] = ['lookup']): ToolDefinition =>
  defineTool({
    name,
    description: `${name}: look something up. Not for changes: use add_order_note.`,
    parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'Order number' } } },
    sideEffect: 'read',
    groups,
    execute: () => ({}),
  });

function registrationError(register: () => unknown): ToolDefinitionError {
  try {
    register();
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolDefinitionError');
}

describe('ToolRegistry', () => {
  it('rejects a duplicate name', () => {
    const registry = new ToolRegistry().register(lookup('query_order'));
    expect(registrationError(() => registry.register(lookup('query_order'))).message).toBe(
      'tool "query_order" is registered twice',
    );
  });

  it('rejects a name providers would refuse', () => {
    const error = registrationError(() => new ToolRegistry().register(lookup('query order!')));
    expect(error.toolName).toBe('query order!');
    expect(error.message).toMatch(/not accepted by model providers/);
  });

  it('rejects an invalid JSON Schema, naming the tool', () => {
    const broken = {
      ...lookup('query_order'),
      parameters: { type: 'object', properties: { order_id: { type: 'strin' } } },
    };
    const error = registrationError(() => new ToolRegistry().register(broken));
    expect(error.toolName).toBe('query_order');
    expect(error.message).toContain('query_order');
  });

  it('rejects parameters that are not an object schema', () => {
    const broken = { ...lookup('query_order'), parameters: { type: 'string' } };
    expect(registrationError(() => new ToolRegistry().register(broken)).message).toMatch(/must describe an object/);
  });

  it('rejects a missing description and an unknown side effect', () => {
    expect(
      registrationError(() => new ToolRegistry().register({ ...lookup('query_order'), description: ' ' })).message,
    ).toMatch(/no description/);
    const badTier = { ...lookup('query_order'), sideEffect: 'dangerous' } as unknown as ToolDefinition;
    expect(registrationError(() => new ToolRegistry().register(badTier)).message).toMatch(/sideEffect "dangerous"/);
  });

  it('rejects a display that names no ISO 4217 currency or an unknown kind, naming the field', () => {
    const money: ToolDefinition = {
      ...lookup('apply_refund'),
      display: { amount_cents: { kind: 'money', currency: 'yuan' } },
    };
    expect(registrationError(() => new ToolRegistry().register(money)).message).toBe(
      'tool "apply_refund": display of "amount_cents": currency "yuan" is not an ISO 4217 code such as "CNY"',
    );
    const odd = { ...lookup('apply_refund'), display: { paid_at: { kind: 'time' } } } as unknown as ToolDefinition;
    expect(registrationError(() => new ToolRegistry().register(odd)).message).toContain(
      'display of "paid_at": kind must be "money", "date" or "datetime", not "time"',
    );
    const good = { ...lookup('apply_refund'), display: { amount_cents: { kind: 'money', currency: 'CNY' } } } as const;
    expect(new ToolRegistry().register(good).get('apply_refund')?.definition.display).toEqual(good.display);
  });

  it('mounts only the tools of the requested groups', () => {
    const registry = new ToolRegistry()
      .register(lookup('query_order'))
      .register(lookup('track_shipment'))
      .register(lookup('apply_refund', ['act']));
    const mounted = registry.mount({ groups: ['lookup'] });
    expect(mounted.names).toEqual(['query_order', 'track_shipment']);
    expect(mounted.get('apply_refund')).toBeUndefined();
    expect(registrationError(() => registry.mount({ groups: ['admin'] })).message).toMatch(
      /no tool belongs to group "admin"/,
    );
  });

  it('removes bound parameters from the schema the model sees', () => {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'query_order',
        description: 'Look up an order. Not for shipments: use track_shipment.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, tenant_id: { type: 'string' }, user_id: { type: 'string' } },
          required: ['order_id', 'tenant_id', 'user_id'],
        },
        sideEffect: 'read',
        boundParameters: { tenant_id: 'tenantId', user_id: (principal) => principal.userId },
        execute: () => ({}),
      }),
    );
    expect(registry.specs[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
    });
  });

  it('accepts tools in OpenAI function-calling format', () => {
    const registry = new ToolRegistry().register(
      fromOpenAiTool({
        type: 'function',
        function: {
          name: 'query_order',
          description: 'Look up an order. Not for shipments: use track_shipment.',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
        },
      }),
    );
    expect(registry.specs).toEqual([
      {
        type: 'function',
        function: {
          name: 'query_order',
          description: 'Look up an order. Not for shipments: use track_shipment.',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } } },
        },
      },
    ]);
  });
});

describe('ToolRegistry data scope', () => {
  const scoped = (extra: Partial<ToolDefinition>): ToolDefinition => ({ ...lookup('query_order'), ...extra });
  const refusal = (extra: Partial<ToolDefinition>) => {
    const error = registrationError(() => new ToolRegistry().register(scoped(extra)));
    return { toolName: error.toolName, message: error.message };
  };

  it('refuses a tool that binds the user but not the tenant, naming the tool, whatever form the binding has', () => {
    expect(refusal({ boundParameters: { user_id: 'userId' } })).toMatchInlineSnapshot(`
      {
        "message": "tool "query_order" binds user_id from the principal's user id but no parameter from its tenant: a user id is unique only within its tenant, so the tool would serve one tenant's user another tenant's data. Bind the tenant too, e.g. boundParameters: { tenant_id: 'tenantId', user_id: 'userId' }, and key the data by both",
        "toolName": "query_order",
      }
    `);
    expect(refusal({ boundParameters: { customer: (principal) => principal.userId } }).message).toContain(
      'binds customer from the principal',
    );
    expect(refusal({ boundParameters: { customer: ({ userId }) => userId.toUpperCase() } }).toolName).toBe(
      'query_order',
    );
  });

  it('refuses a declared tenant scope that binds no tenant, and a global one that binds the principal', () => {
    expect(refusal({ dataScope: 'tenant' }).message).toMatchInlineSnapshot(
      `"tool "query_order" declares dataScope 'tenant' but binds no parameter from the principal's tenant: bind the tenant too, e.g. boundParameters: { tenant_id: 'tenantId', user_id: 'userId' }"`,
    );
    expect(refusal({ dataScope: 'tenant_user', boundParameters: { tenant_id: 'tenantId' } }).message).toMatch(
      /declares dataScope 'tenant_user' but binds no parameter from the principal's user id/,
    );
    expect(refusal({ dataScope: 'global', boundParameters: { tenant_id: 'tenantId' } }).message).toMatch(
      /declares dataScope 'global' but binds tenant_id from the principal/,
    );
    expect(refusal({ dataScope: 'per_user' as 'tenant' }).message).toMatch(
      /has dataScope "per_user"; expected one of global, tenant, tenant_user/,
    );
    expect(refusal({ idempotencyScope: 'global' as 'tenant' }).message).toMatch(
      /has idempotencyScope "global"; expected one of principal, tenant/,
    );
    expect(refusal({ boundParameters: { user_id: 'roles' as 'userId' } }).message).toMatch(
      /binds user_id to "roles"; use a principal field \('tenantId', 'userId'\) or a function of the principal/,
    );
  });

  it('accepts the tenant with the user, declared or inferred, and a binding that reads both at once', () => {
    const registry = new ToolRegistry()
      .register(scoped({ name: 'query_order', boundParameters: { tenant_id: 'tenantId', user_id: 'userId' } }))
      .register(
        scoped({
          name: 'list_orders',
          dataScope: 'tenant_user',
          boundParameters: { owner: (p) => `${p.tenantId}/${p.userId}` },
        }),
      )
      .register(scoped({ name: 'list_products', boundParameters: { tenant_id: 'tenantId' } }))
      .register(scoped({ name: 'get_rates', dataScope: 'global' }))
      .register(scoped({ name: 'get_time' }));
    expect(registry.names.map((name) => [name, registry.get(name)?.dataScope])).toEqual([
      ['query_order', 'tenant_user'],
      ['list_orders', 'tenant_user'],
      ['list_products', 'tenant'],
      ['get_rates', 'global'],
      ['get_time', undefined],
    ]);
  });
});
