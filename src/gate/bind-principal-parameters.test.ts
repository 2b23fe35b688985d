import { describe, expect, it } from 'vitest';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { bindPrincipalParameters } from './bind-principal-parameters.js';

function boundTool() {
  const tool = new ToolRegistry()
    .register(
      defineTool<{ tenant_id: string; user_id: string; order_id: string }>({
        name: 'query_order',
        description: 'Look up one order. Not for shipments: use track_shipment.',
        parameters: {
          type: 'object',
          properties: {
            tenant_id: { type: 'string', description: 'Tenant' },
            user_id: { type: 'string', description: 'User' },
            order_id: { type: 'string', description: 'Order number' },
          },
          required: ['tenant_id', 'user_id', 'order_id'],
          additionalProperties: false,
        },
        boundParameters: { tenant_id: 'tenantId', user_id: (principal) => principal.userId },
        sideEffect: 'read',
        execute: () => ({ ok: true }),
      }),
    )
    .get('query_order');
  if (tool === undefined) throw new Error('no tool');
  return tool;
}

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] } as const;

describe('bindPrincipalParameters', () => {
  it('sets every bound parameter from the principal over what the model sent, in a copy', () => {
    const args = JSON.parse('{"order_id":"SO20260901","user_id":"C1002"}') as Record<string, unknown>;
    const bound = bindPrincipalParameters({ args, tool: boundTool(), principal });
    expect(bound).toStrictEqual({ order_id: 'SO20260901', user_id: 'C1001', tenant_id: 'shop' });
    expect(Object.keys(bound)).toEqual(['order_id', 'user_id', 'tenant_id']);
    expect(args).toStrictEqual({ order_id: 'SO20260901', user_id: 'C1002' });
  });

  it('removes the bound parameters without a principal', () => {
    const args = { order_id: 'SO20260901', tenant_id: 'other' };
    expect(bindPrincipalParameters({ args, tool: boundTool(), principal: undefined })).toStrictEqual({
      order_id: 'SO20260901',
    });
  });

  it('copies an own __proto__ key as a key, never as the prototype, and no inherited key', () => {
    const args = JSON.parse('{"__proto__":{"polluted":true},"1":"one","order_id":"SO20260901"}') as Record<
      string,
      unknown
    >;
    const withInherited = Object.assign(Object.create({ inherited: 'x' }) as Record<string, unknown>, {
      order_id: 'SO20260901',
    });
    const bound = bindPrincipalParameters({ args, tool: boundTool(), principal });
    expect(Object.getPrototypeOf(bound)).toBe(Object.prototype);
    expect(Object.hasOwn(bound, '__proto__')).toBe(true);
    expect(Object.keys(bound)).toEqual(['1', '__proto__', 'order_id', 'tenant_id', 'user_id']);
    expect(JSON.stringify(bound)).toBe(
      '{"1":"one","__proto__":{"polluted":true},"order_id":"SO20260901","tenant_id":"shop","user_id":"C1001"}',
    );
    expect(withInherited['inherited']).toBe('x');
    expect(bindPrincipalParameters({ args: withInherited, tool: boundTool(), principal })).toStrictEqual({
      order_id: 'SO20260901',
      tenant_id: 'shop',
      user_id: 'C1001',
    });
  });
});
