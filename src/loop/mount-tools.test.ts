import { describe, expect, it } from 'vitest';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { mountTools } from './mount-tools.js';

function registry() {
  const tool = (name: string, group: string) =>
    defineTool({
      name,
      description: `${name}: a test tool.`,
      parameters: { type: 'object', properties: {} },
      sideEffect: 'read',
      groups: [group],
      execute: () => null,
    });
  return new ToolRegistry().register(tool('query_order', 'lookup')).register(tool('apply_refund_check', 'act'));
}

describe('mountTools', () => {
  it('mounts the groups of the step, or every tool without groups', () => {
    const tools = registry();
    expect(mountTools({ tools }, 1)).toBe(tools);
    expect(mountTools({ tools, groups: ['lookup'] }, 1).names).toEqual(['query_order']);
    expect(mountTools({ tools, groups: ({ step }) => (step > 1 ? ['act'] : ['lookup']) }, 2).names).toEqual([
      'apply_refund_check',
    ]);
  });
});
