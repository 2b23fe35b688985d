import { describe, expect, it } from 'vitest';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { toolAnnotations } from './tool-annotations.js';

const parameters = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The id', pattern: '^X\\d+$', examples: ['X1'] } },
  required: ['id'],
  additionalProperties: false,
} as const;

function registered(sideEffect: 'read' | 'reversible' | 'irreversible', keyed: boolean) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ id: string }>({
      name: 'touch_item',
      description: 'Touches an item. Use it to test annotations; not for anything else.',
      parameters,
      sideEffect,
      ...(keyed ? { idempotencyKey: ({ id }: { id: string }) => `touch:${id}` } : {}),
      execute: () => ({ ok: true }),
    }),
  );
  return registry.get('touch_item') as NonNullable<ReturnType<ToolRegistry['get']>>;
}

describe('toolAnnotations', () => {
  it('maps each tier to the hints an MCP client reads', () => {
    expect(toolAnnotations(registered('read', false))).toEqual({
      title: 'touch_item',
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(toolAnnotations(registered('reversible', false))).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(toolAnnotations(registered('irreversible', false))).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(toolAnnotations(registered('irreversible', true))).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
  });
});
