import { generateText, stepCountIs } from 'ai7';
import { MockLanguageModelV4 } from 'ai7/test';
import { describe, expect, it } from 'vitest';
import { denyAllApprovals } from '../../gate/approval-broker.js';
import { MemoryAuditLog } from '../../gate/memory-audit-log.js';
import { createTierGate } from '../../gate/tier-gate.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import type { ExternalApprovals } from '../loop-approvals.js';
import { arbiterTools } from './arbiter-tools.js';

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const approvals: ExternalApprovals = { decide: denyAllApprovals.decide, listApprovals: () => [] };
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function shop(): ToolRegistry {
  return new ToolRegistry()
    .register(
      defineTool<{ tenant_id: string; order_id: string }>({
        name: 'query_order',
        description: 'Look up one order.',
        parameters: {
          type: 'object',
          properties: { tenant_id: { type: 'string' }, order_id: { type: 'string', pattern: '^SO\\d{8}$' } },
          required: ['tenant_id', 'order_id'],
          additionalProperties: false,
        },
        boundParameters: { tenant_id: 'tenantId' },
        sideEffect: 'read',
        execute: ({ tenant_id, order_id }) => ({ tenant_id, order_id, status: 'shipped' }),
      }),
    )
    .register(
      defineTool<{ order_id: string }>({
        name: 'cancel_order',
        description: 'Cancel an order.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' } },
          required: ['order_id'],
          additionalProperties: false,
        },
        sideEffect: 'irreversible',
        execute: () => ({ cancelled: true }),
      }),
    );
}

/** A model that asks for `query_order` with `input` once, then says "done". */
function callingModel(input: string): MockLanguageModelV4 {
  let called = false;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      if (called)
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      called = true;
      return {
        content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'query_order', input }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

describe('arbiterTools', () => {
  it('gives needsApproval only to a tool a call of which can wait for a person', () => {
    const tools = shop();
    const set = arbiterTools(tools, { principal, gate: createTierGate({ tools }), approvals });
    expect(set['query_order']?.needsApproval).toBeUndefined();
    expect(set['cancel_order']?.needsApproval).toBeTypeOf('function');
  });

  it('still validates, binds and audits every call of a tool without needsApproval', async () => {
    const tools = shop();
    const audit = new MemoryAuditLog();
    const run = (input: string) =>
      generateText({
        model: callingModel(input),
        tools: arbiterTools(tools, { principal, gate: createTierGate({ tools }), approvals, audit }),
        prompt: 'go',
        stopWhen: stepCountIs(3),
      });
    const wrong = await run('{"order_id":"2026-0901","tenant_id":"other"}');
    const refused = wrong.steps[0]?.toolResults[0]?.output as { status: string; text: string };
    expect(refused.status).toBe('error');
    expect(refused.text).toContain('order_id');
    const right = await run('{"order_id":"SO20260901","tenant_id":"other"}');
    expect(right.steps[0]?.toolResults[0]?.output).toMatchObject({
      status: 'ok',
      data: { tenant_id: 'shop', order_id: 'SO20260901' },
    });
    expect(audit.findCalls({ tool: 'query_order' })).toEqual([
      expect.objectContaining({ arguments: { order_id: 'SO20260901', tenant_id: 'shop' }, decision: 'allowed' }),
    ]);
  });
});
