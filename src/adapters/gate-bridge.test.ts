import { afterEach, describe, expect, it } from 'vitest';
import { openShopDomain } from '../../examples/shop/shop-domain.js';
import { createTierGate } from '../gate/tier-gate.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { externalRunId, isExternalRunId } from './external-run.js';
import { createGateBridge } from './gate-bridge.js';

const alice = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function bridge(locale: 'en' | 'zh-CN') {
  const shop = openShopDomain({ dataDir: ':memory:', locale });
  const backend = openSqliteBackend({ path: ':memory:' });
  closers.push(shop.close, () => backend.close());
  const tools = new ToolRegistry();
  for (const tool of shop.tools) tools.register(tool);
  const gate = createTierGate({ rules: shop.gateRules, tools });
  return createGateBridge({
    tools,
    loop: 'ai_sdk',
    options: { principal: alice, gate, approvals: backend.approvals, audit: backend.audit, locale },
  });
}

describe('createGateBridge', () => {
  it('words every model-facing answer in the run’s language (zh-CN)', async () => {
    const gateBridge = bridge('zh-CN');
    const refund = { order_id: 'SO20260902', amount_cents: 8000, reason_category: 'damaged', reason: '杯子把手碎了。' };
    const wrong = await gateBridge.run({
      tool: 'apply_refund',
      input: { ...refund, order_id: '2026-0902' },
      toolCallId: 'c1',
      step: 1,
    });
    expect(wrong.status).toBe('error');
    expect(wrong.text).toContain('`order_id`');
    expect(wrong.text).toMatch(/[\u4e00-\u9fff]/);
    const call = { tool: 'apply_refund', input: refund, toolCallId: 'c2', step: 2 };
    expect(await gateBridge.needsApproval(call)).toBe(true);
    // Asked again about the same call: nothing is asked twice.
    expect(await gateBridge.needsApproval(call)).toBe(true);
    const waiting = await gateBridge.run(call);
    expect(waiting.status).toBe('awaiting_approval');
    expect(waiting.text).toContain('apply_refund 尚未执行：它需要工作人员确认');
  });

  it('answers needsApproval false for a call the gate lets through, and runs it with the principal bound', async () => {
    const gateBridge = bridge('en');
    const call = {
      tool: 'query_order',
      input: { order_id: 'SO20260901', user_id: 'C1002' },
      toolCallId: 'q1',
      step: 1,
    };
    expect(await gateBridge.needsApproval(call)).toBe(false);
    const result = await gateBridge.run(call);
    // The model's user_id is not a parameter it has: the bound principal's is used, and the order is Alice's.
    expect(result.status).toBe('ok');
    expect(JSON.stringify(result)).toContain('SO20260901');
  });

  it('names a run per loop, tenant, user and conversation, which the approval routes do not resume', () => {
    const runId = externalRunId({ loop: 'ai_sdk', principal: alice, conversationId: 'chat-1' });
    expect(isExternalRunId(runId)).toBe(true);
    expect(externalRunId({ loop: 'openai_agents', principal: alice, conversationId: 'chat-1' })).not.toBe(runId);
    expect(
      externalRunId({ loop: 'ai_sdk', principal: { ...alice, userId: 'C1002' }, conversationId: 'chat-1' }),
    ).not.toBe(runId);
    expect(externalRunId({ loop: 'ai_sdk', principal: alice, conversationId: 'chat-2' })).not.toBe(runId);
    expect(isExternalRunId('ext_not-a-hash')).toBe(false);
  });
});

describe('needsApproval ahead of the pipeline', () => {
  it('answers a tool the gate can never hold without checking the call; run still puts it through the gate', async () => {
    const shop = openShopDomain({ dataDir: ':memory:', locale: 'en' });
    const backend = openSqliteBackend({ path: ':memory:' });
    closers.push(shop.close, () => backend.close());
    const tools = new ToolRegistry();
    for (const tool of shop.tools) tools.register(tool);
    const tierGate = createTierGate({ rules: shop.gateRules, tools });
    const checked: string[] = [];
    const gate = {
      ...tierGate,
      check: (request: Parameters<typeof tierGate.check>[0]) => {
        checked.push(request.tool.definition.name);
        return tierGate.check(request);
      },
    };
    const gateBridge = createGateBridge({
      tools,
      loop: 'ai_sdk',
      options: { principal: alice, gate, approvals: backend.approvals, audit: backend.audit },
    });
    const read = { tool: 'query_order', input: { order_id: 'SO20260901' }, toolCallId: 'q1', step: 1 };
    expect(await gateBridge.needsApproval(read)).toBe(false);
    expect(checked).toEqual([]);
    expect((await gateBridge.run(read)).status).toBe('ok');
    expect(checked).toEqual(['query_order']);
    // An irreversible tool is checked ahead, as before.
    const refund = {
      tool: 'apply_refund',
      input: {
        order_id: 'SO20260902',
        amount_cents: 8000,
        reason_category: 'damaged',
        reason: 'The mug handle broke.',
      },
      toolCallId: 'r1',
      step: 2,
    };
    expect(await gateBridge.needsApproval(refund)).toBe(true);
    expect(checked).toEqual(['query_order', 'apply_refund']);
  });
});
