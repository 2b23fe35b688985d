import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { createEventProjector } from './create-event-projector.js';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

function shopTools() {
  return new ToolRegistry()
    .register(
      defineTool({
        name: 'query_order',
        description: 'Look up one order. Not for shipments: use track_shipment.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, tenant_id: { type: 'string' }, user_id: { type: 'string' } },
          required: ['order_id'],
        },
        sideEffect: 'read',
        boundParameters: { tenant_id: 'tenantId', user_id: (principal) => principal.userId },
        execute: () => ({}),
      }),
    )
    .register(
      defineTool({
        name: 'apply_refund',
        description: 'Refund an order. Not for order status: use query_order.',
        parameters: {
          type: 'object',
          properties: {
            order_id: { type: 'string' },
            amount_cents: { type: 'integer' },
            contact: { type: 'string' },
            note: { type: 'string', 'x-sensitive': true },
            pickup: { type: 'object', properties: { street_address: { type: 'string' }, floor: { type: 'integer' } } },
          },
        },
        sideEffect: 'irreversible',
        sensitive: ['contact'],
        // A redacted field keeps its raw look: no display is sent for `contact`.
        display: { amount_cents: { kind: 'money', currency: 'CNY' }, contact: { kind: 'date' } },
        progress: { en: 'Submitting your refund…', 'zh-CN': '正在提交退款申请…' },
        execute: () => ({}),
      }),
    );
}

function events(): AgentEvent[] {
  const bodies: AgentEventBody[] = [
    { type: 'run:start', sessionId: 'session-secret', model: 'gpt-internal' },
    { type: 'model:delta', step: 1, text: 'Let me check.' },
    { type: 'model:end', step: 1, usage, finishReason: 'tool_calls', toolCalls: 2 },
    { type: 'tool:proposed', step: 1, toolCallId: 'c1', tool: 'query_order', arguments: '{"order_id":"SO20260901"}' },
    { type: 'tool:start', step: 1, toolCallId: 'c1', tool: 'query_order' },
    { type: 'tool:end', step: 1, toolCallId: 'c1', tool: 'query_order', durationMs: 3 },
    {
      type: 'approval:required',
      step: 1,
      toolCallId: 'c2',
      approvalId: 'ap_1',
      tool: 'apply_refund',
      arguments: {
        order_id: 'SO20260901',
        amount_cents: 12000,
        contact: '+86 138 0013 8000',
        note: 'leave at door',
        pickup: { street_address: '88 Jianguo Road', floor: 3 },
      },
      rule: 'amount_over_cap',
      reason: 'Refunds of 50.00 yuan or more need staff approval.',
    },
    {
      type: 'approval:resolved',
      toolCallId: 'c2',
      approvalId: 'ap_1',
      tool: 'apply_refund',
      decision: 'approved',
      approver: 'agent-7',
    },
    { type: 'tool:start', step: 1, toolCallId: 'c2', tool: 'apply_refund' },
    {
      type: 'tool:error',
      step: 2,
      toolCallId: 'c3',
      tool: 'track_shipment',
      stage: 'validation',
      code: 'invalid_format',
      retryable: true,
      durationMs: 1,
    },
    { type: 'heartbeat' },
    { type: 'run:error', code: 'infrastructure_failure', message: 'SQLITE_BUSY at /srv/db.ts', steps: 2, usage },
    { type: 'run:end', stopReason: 'completed', steps: 2, usage, durationMs: 40 },
  ];
  return [
    ...bodies.map((body, index) => ({ ...body, runId: 'r1', seq: index + 1, at: 0 }) as AgentEvent),
    { type: 'gap', runId: 'r1', seq: 20, at: 0, fromSeq: 14, toSeq: 20 },
  ];
}

describe('createEventProjector', () => {
  it('keeps tool names, statuses and sentences, and nothing internal or sensitive', () => {
    const project = createEventProjector({ tools: shopTools() });
    expect(events().map(project)).toMatchInlineSnapshot(`
      [
        {
          "at": 0,
          "runId": "r1",
          "seq": 1,
          "type": "run:start",
        },
        {
          "at": 0,
          "runId": "r1",
          "seq": 2,
          "step": 1,
          "text": "Let me check.",
          "type": "model:delta",
        },
        {
          "at": 0,
          "runId": "r1",
          "seq": 3,
          "step": 1,
          "toolCalls": 2,
          "type": "model:end",
          "usage": {
            "inputTokens": 10,
            "outputTokens": 5,
            "totalTokens": 15,
          },
        },
        {
          "at": 0,
          "runId": "r1",
          "seq": 4,
          "status": "proposed",
          "step": 1,
          "tool": "query_order",
          "toolCallId": "c1",
          "type": "tool:proposed",
        },
        {
          "at": 0,
          "runId": "r1",
          "seq": 5,
          "status": "running",
          "step": 1,
          "text": "Looking up your order…",
          "tool": "query_order",
          "toolCallId": "c1",
          "type": "tool:start",
        },
        {
          "at": 0,
          "durationMs": 3,
          "runId": "r1",
          "seq": 6,
          "status": "done",
          "step": 1,
          "tool": "query_order",
          "toolCallId": "c1",
          "type": "tool:end",
        },
        {
          "approvalId": "ap_1",
          "arguments": {
            "amount_cents": 12000,
            "contact": "[redacted]",
            "note": "[redacted]",
            "order_id": "SO20260901",
            "pickup": {
              "floor": 3,
              "street_address": "[redacted]",
            },
          },
          "at": 0,
          "display": {
            "amount_cents": {
              "currency": "CNY",
              "kind": "money",
            },
          },
          "reason": "Refunds of 50.00 yuan or more need staff approval.",
          "runId": "r1",
          "seq": 7,
          "status": "awaiting_approval",
          "step": 1,
          "text": "Waiting for approval…",
          "tool": "apply_refund",
          "toolCallId": "c2",
          "type": "approval:required",
        },
        {
          "approvalId": "ap_1",
          "at": 0,
          "runId": "r1",
          "seq": 8,
          "status": "approved",
          "text": "Approved.",
          "tool": "apply_refund",
          "toolCallId": "c2",
          "type": "approval:resolved",
        },
        {
          "at": 0,
          "runId": "r1",
          "seq": 9,
          "status": "running",
          "step": 1,
          "text": "Submitting your refund…",
          "tool": "apply_refund",
          "toolCallId": "c2",
          "type": "tool:start",
        },
        {
          "at": 0,
          "code": "invalid_format",
          "retryable": true,
          "runId": "r1",
          "seq": 10,
          "stage": "validation",
          "status": "failed",
          "step": 2,
          "text": "Fixing the request…",
          "tool": "track_shipment",
          "toolCallId": "c3",
          "type": "tool:error",
        },
        {
          "at": 0,
          "runId": "r1",
          "seq": 11,
          "type": "heartbeat",
        },
        {
          "at": 0,
          "code": "infrastructure_failure",
          "runId": "r1",
          "seq": 12,
          "text": "Something went wrong. Please try again later.",
          "type": "run:error",
        },
        {
          "at": 0,
          "durationMs": 40,
          "runId": "r1",
          "seq": 13,
          "steps": 2,
          "stopReason": "completed",
          "type": "run:end",
          "usage": {
            "inputTokens": 10,
            "outputTokens": 5,
            "totalTokens": 15,
          },
        },
        {
          "at": 0,
          "fromSeq": 14,
          "runId": "r1",
          "seq": 20,
          "text": "Some updates were missed.",
          "toSeq": 20,
          "type": "gap",
        },
      ]
    `);
  });

  it('words progress in Chinese, from the tool’s own progress first, then the table, then the default', () => {
    const project = createEventProjector({ tools: shopTools(), locale: 'zh-CN' });
    const texts = events()
      .map(project)
      .flatMap((event) => ('text' in event && event.type !== 'model:delta' ? [`${event.type} ${event.text}`] : []));
    expect(texts).toMatchInlineSnapshot(`
      [
        "tool:start 正在查询订单…",
        "approval:required 等待人工确认…",
        "approval:resolved 已确认。",
        "tool:start 正在提交退款申请…",
        "tool:error 正在修正请求…",
        "run:error 出了点问题，请稍后再试。",
        "gap 部分进度更新未送达。",
      ]
    `);
    const unknown = createEventProjector({ locale: 'zh-CN' });
    const start = unknown({
      type: 'tool:start',
      step: 1,
      toolCallId: 'c',
      tool: 'cancel_order',
      runId: 'r',
      seq: 1,
      at: 0,
    });
    expect(start.type === 'tool:start' && start.text).toBe('处理中…');
    const odd = unknown({
      type: 'tool:start',
      step: 1,
      toolCallId: 'c',
      tool: 'call +86 138',
      runId: 'r',
      seq: 2,
      at: 0,
    });
    expect(odd.type === 'tool:start' && odd.tool).toBe('unknown');
  });

  it('lets no sensitive, principal-bound or internal value into any external event', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const plainValue = fc.oneof(fc.stringMatching(/^[a-z]{0,6}$/), fc.integer(), fc.boolean());
    const phone = fc
      .tuple(fc.integer({ min: 1, max: 999 }), fc.stringMatching(/^1[3-9]\d{9}$/))
      .map(([country, digits]) => `+${country} ${digits}`);
    const address = fc
      .tuple(fc.integer({ min: 1, max: 9999 }), fc.stringMatching(/^[A-Z][a-z]{2,9}$/))
      .map(([number, street]) => `${number} ${street} Road`);
    const email = word.map((name) => `${name}@mail.example`);
    const secret = fc.oneof(phone, address, email);
    const personalName = fc.constantFrom(
      'phone',
      'recipient_phone',
      'shippingAddress',
      'contact-email',
      'mobile',
      'id_card',
    );

    fc.assert(
      fc.property(
        fc.dictionary(
          word.map((name) => `p_${name}`),
          plainValue,
          { maxKeys: 4 },
        ),
        fc.dictionary(
          word.map((name) => `s_${name}`),
          secret,
          { maxKeys: 3 },
        ),
        fc.dictionary(
          word.map((name) => `x_${name}`),
          secret,
          { maxKeys: 3 },
        ),
        fc.dictionary(personalName, secret, { maxKeys: 3 }),
        fc.option(fc.dictionary(personalName, secret, { minKeys: 1, maxKeys: 2 }), { nil: undefined }),
        fc.stringMatching(/^U#\d{4,8}$/),
        fc.constantFrom<'en' | 'zh-CN'>('en', 'zh-CN'),
        (plain, listed, flagged, named, nested, userId, locale) => {
          const properties: Record<string, unknown> = { user_id: { type: 'string' } };
          for (const name of Object.keys(plain)) properties[name] = {};
          for (const name of Object.keys(listed)) properties[name] = { type: 'string' };
          for (const name of Object.keys(flagged)) properties[name] = { type: 'string', 'x-sensitive': true };
          for (const name of Object.keys(named)) properties[name] = { type: 'string' };
          const tools = new ToolRegistry().register(
            defineTool({
              name: 'update_contact',
              description: 'Change contact details. Not for orders: use query_order.',
              parameters: { type: 'object', properties },
              sideEffect: 'irreversible',
              sensitive: Object.keys(listed),
              boundParameters: { user_id: () => userId },
              execute: () => ({}),
            }),
          );
          const args = {
            ...plain,
            ...listed,
            ...flagged,
            ...named,
            ...(nested === undefined ? {} : { p_details: [{ ...nested, floor: 3 }] }),
            user_id: userId,
          };
          const hidden = [
            ...Object.values(listed),
            ...Object.values(flagged),
            ...Object.values(named),
            ...Object.values(nested ?? {}),
            userId,
          ];
          const call = { step: 1, toolCallId: 'c1', tool: 'update_contact' } as const;
          const bodies: AgentEventBody[] = [
            { type: 'run:start', sessionId: userId, model: userId },
            { ...call, type: 'tool:proposed', arguments: JSON.stringify(args) },
            {
              ...call,
              type: 'approval:required',
              approvalId: 'ap_1',
              arguments: args,
              rule: 'always',
              reason: 'always asks',
            },
            {
              type: 'approval:resolved',
              toolCallId: 'c1',
              approvalId: 'ap_1',
              tool: 'update_contact',
              decision: 'approved',
              approver: userId,
            },
            { ...call, type: 'tool:start' },
            { ...call, type: 'tool:end', durationMs: 1 },
            { ...call, type: 'tool:error', stage: 'execution', code: 'not_found', retryable: false, durationMs: 1 },
            { type: 'run:error', code: 'internal_error', message: `failed for ${hidden.join(', ')}`, steps: 1, usage },
          ];
          const project = createEventProjector({ tools, locale });
          for (const [index, body] of bodies.entries()) {
            const text = JSON.stringify(project({ ...body, runId: 'r1', seq: index + 1, at: 0 } as AgentEvent));
            for (const value of hidden) expect(text).not.toContain(value);
          }
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});
