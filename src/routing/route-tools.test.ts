import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { abortableSleep } from '../models/abortable-sleep.js';
import type { Model } from '../models/model.js';
import { routeTools, toolsInUse } from './route-tools.js';
import { deskTools } from './test-support/desk-tools.js';

const { registry } = deskTools();

function ask(text: string): ChatMessage[] {
  return [{ role: 'user', content: text }];
}

/** A stand-in for a small router model (none runs offline): it always answers the same text, after `latencyMs`. */
function sayingModel(text: string, latencyMs = 0): Model {
  return {
    name: 'small',
    generate: async (request) => {
      if (latencyMs > 0) await abortableSleep(latencyMs, request.signal);
      return {
        message: { role: 'assistant', content: text },
        usage: { inputTokens: 120, outputTokens: 8 },
        finishReason: 'stop',
      };
    },
  };
}

describe('routeTools', () => {
  it('sends the best topK tools for the latest user message, in registry order, with scores and reason', async () => {
    const step = await routeTools({
      tools: registry,
      messages: ask('Where is my parcel? Track it please'),
      options: { topK: 2 },
    });
    expect(step.tools.names).toEqual(['query_order', 'track_shipment']);
    expect(step.tools.specs.map((spec) => spec.function.name)).toEqual(step.tools.names);
    expect(step.tools.routing).toMatchObject({ reason: 'lexical', offered: 12, kept: [], tools: step.tools.names });
    expect(step.tools.routing.scores[0]?.tool).toBe('track_shipment');
    expect(step.usage).toBeUndefined();
  });

  it('routes Chinese requests through the Chinese words of the descriptions', async () => {
    const refund = await routeTools({ tools: registry, messages: ask('我要退款'), options: { topK: 1 } });
    expect(refund.tools.names).toEqual(['apply_refund']);
    const address = await routeTools({ tools: registry, messages: ask('帮我把收货地址改一下'), options: { topK: 1 } });
    expect(address.tools.names).toEqual(['change_address']);
  });

  it('keeps the tools called since the latest user message and the always-sent ones, besides topK', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'I want to book a meeting' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_files', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{}' },
    ];
    expect(toolsInUse(messages)).toEqual(['search_files']);
    const step = await routeTools({ tools: registry, messages, options: { topK: 1, always: ['handoff_to_human'] } });
    expect(step.tools.names).toEqual(['book_meeting', 'search_files', 'handoff_to_human']);
    expect(step.tools.routing.kept).toEqual(['search_files', 'handoff_to_human']);
  });

  it('forgets the tools of an earlier user turn', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'find my files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_files', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{}' },
      { role: 'assistant', content: 'Found them.' },
      { role: 'user', content: 'now book a meeting' },
    ];
    expect(toolsInUse(messages)).toEqual([]);
    const step = await routeTools({ tools: registry, messages, options: { topK: 1 } });
    expect(step.tools.names).toEqual(['book_meeting']);
  });

  it('sends everything when no more tools are mounted than topK', async () => {
    const step = await routeTools({ tools: registry, messages: ask('anything'), options: { topK: 12 } });
    expect(step.tools.routing.reason).toBe('all_fit');
    expect(step.tools.names).toEqual(registry.names);
  });

  it('sends every tool when nothing matches, or only the kept ones with onNoMatch "kept"', async () => {
    const all = await routeTools({ tools: registry, messages: ask('hello there'), options: { topK: 3 } });
    expect(all.tools.routing.reason).toBe('no_match');
    expect(all.tools.names).toEqual(registry.names);
    const kept = await routeTools({
      tools: registry,
      messages: ask('hello there'),
      options: { topK: 3, onNoMatch: 'kept', always: ['handoff_to_human'] },
    });
    expect(kept.tools.names).toEqual(['handoff_to_human']);
  });

  it('keeps to the tools in use at a later step of the turn when the request matches only them', async () => {
    const called: ChatMessage[] = [
      { role: 'user', content: 'find my contract file' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_files', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{}' },
    ];
    const step = await routeTools({ tools: registry, messages: called, options: { topK: 2 } });
    expect(step.tools.names).toEqual(['search_files']);
    expect(step.tools.routing.reason).toBe('lexical');
    const goAhead: ChatMessage[] = [...called.slice(1), { role: 'user', content: 'yes, go ahead' }];
    // A new user message ends the turn: nothing is in use any more, and nothing matches.
    expect((await routeTools({ tools: registry, messages: goAhead, options: { topK: 2 } })).tools.routing.reason).toBe(
      'no_match',
    );
  });

  it('searches the task too, at half weight', async () => {
    const step = await routeTools({
      tools: registry,
      messages: ask('yes, go ahead'),
      options: { topK: 1, task: 'The customer wants an invoice list for 2025' },
    });
    expect(step.tools.names).toEqual(['list_invoices']);
  });

  it('ignores an always-sent name that is not mounted', async () => {
    const step = await routeTools({
      tools: registry,
      messages: ask('track my parcel'),
      options: { topK: 1, always: ['no_such_tool'] },
    });
    expect(step.tools.names).toEqual(['track_shipment']);
  });
});

describe('routeTools with a router model', () => {
  it("sends the model's choice (checked, in registry order) with the kept tools, and reports its usage", async () => {
    const model = sayingModel('```json\n["handoff_to_human", "cancel_order"]\n```');
    const step = await routeTools({
      tools: registry,
      messages: ask('I do not want it any more'),
      options: { topK: 3, model },
    });
    expect(step.tools.names).toEqual(['cancel_order', 'handoff_to_human']);
    expect(step.tools.routing.reason).toBe('model');
    expect(step.usage?.inputTokens).toBeGreaterThan(0);
    expect(step.routerModel).toBe('small');
  });

  it('cuts a longer list to topK', async () => {
    const model = sayingModel('["cancel_order", "apply_refund", "query_order"]');
    const step = await routeTools({ tools: registry, messages: ask('cancel'), options: { topK: 2, model } });
    expect(step.tools.names).toEqual(['cancel_order', 'apply_refund']);
  });

  it.each([
    ['prose', 'You should use cancel_order.'],
    ['an unknown tool', '["cancel_order", "delete_everything"]'],
    ['a non-string item', '["cancel_order", 42]'],
    ['an object', '{"tools": "cancel_order"}'],
    ['broken JSON', '["cancel_order",'],
  ])('falls back to the lexical ranking on %s', async (_kind, text) => {
    const step = await routeTools({
      tools: registry,
      messages: ask('please track my parcel'),
      options: { topK: 1, model: sayingModel(text) },
    });
    expect(step.tools.routing).toMatchObject({ reason: 'lexical_fallback', fallback: 'invalid_answer' });
    expect(step.tools.names).toEqual(['track_shipment']);
  });

  it('falls back when the router model times out', async () => {
    const step = await routeTools({
      tools: registry,
      messages: ask('please track my parcel'),
      options: { topK: 1, model: sayingModel('["cancel_order"]', 200), modelTimeoutMs: 20 },
    });
    expect(step.tools.routing).toMatchObject({ reason: 'lexical_fallback', fallback: 'timeout' });
    expect(step.tools.names).toEqual(['track_shipment']);
  });

  it('falls back when the router model fails', async () => {
    const broken: Model = {
      name: 'broken',
      generate: () => Promise.reject(new Error('503 from upstream')),
    };
    const step = await routeTools({
      tools: registry,
      messages: ask('please track my parcel'),
      options: { topK: 1, model: broken },
    });
    expect(step.tools.routing).toMatchObject({ reason: 'lexical_fallback', fallback: 'model_error' });
  });

  it('treats [] as "no tool needed": the onNoMatch policy applies', async () => {
    const step = await routeTools({
      tools: registry,
      messages: ask('thanks!'),
      options: { topK: 2, model: sayingModel('[]'), onNoMatch: 'kept' },
    });
    expect(step.tools.routing.reason).toBe('no_match');
    expect(step.tools.names).toEqual([]);
  });

  it('gives up when the run is aborted instead of falling back', async () => {
    const controller = new AbortController();
    const routing = routeTools({
      tools: registry,
      messages: ask('cancel'),
      options: { topK: 1, model: sayingModel('["cancel_order"]', 500) },
      signal: controller.signal,
    });
    controller.abort(new DOMException('stop', 'AbortError'));
    await expect(routing).rejects.toThrow();
  });

  it('asks in Chinese for a zh-CN run, with the catalogue and the request', async () => {
    const requests: string[] = [];
    const model: Model = {
      name: 'small',
      generate: async (request) => {
        requests.push(request.messages.map((message) => message.content ?? '').join('\n'));
        return {
          message: { role: 'assistant', content: '["apply_refund"]' },
          usage: { inputTokens: 1, outputTokens: 1 },
          finishReason: 'stop',
        };
      },
    };
    const step = await routeTools({
      tools: registry,
      messages: ask('钱什么时候退回来'),
      options: { topK: 2, model },
      locale: 'zh-CN',
    });
    expect(step.tools.names).toEqual(['apply_refund']);
    expect(requests[0]).toContain('只回复一个 JSON 数组');
    expect(requests[0]).toContain('- apply_refund: Refund money for an order.');
    expect(requests[0]).toContain('用户最新请求：钱什么时候退回来');
  });
});
