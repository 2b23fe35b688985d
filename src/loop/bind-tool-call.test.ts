import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../util/canonical-json.js';
import { argumentsHash } from '../util/sha256.js';
import { bindToolCall } from './bind-tool-call.js';
import { testRuntime } from './test-support/test-runtime.js';

describe('bindToolCall', () => {
  it('binds the principal, hashes the bound arguments once and redacts what people see', () => {
    const { runtime, registry } = testRuntime();
    const tool = registry.get('query_order');
    if (tool === undefined) throw new Error('no tool');
    const head = { step: 2, toolCallId: 'c1', toolName: 'query_order', startedAt: 0 };
    const call = bindToolCall(runtime, head, tool, { order_id: 'SO20260901', note: 'secret' });
    const bound = { order_id: 'SO20260901', note: 'secret', tenant_id: 'shop', user_id: 'C1001' };
    expect(call.args).toEqual(bound);
    expect(call.argumentsHash).toBe(argumentsHash(bound));
    expect(call.shownArguments.note).not.toBe('secret');
    expect(call.context).toMatchObject({ runId: 'run_test', step: 2, toolCallId: 'c1', locale: 'en' });
    expect(call).toMatchObject({ decision: 'allowed', rule: undefined, approver: undefined });
    call.releaseHistory();
  });

  it('hashes the bound arguments even when handed the canonical JSON of the validated ones', () => {
    const { runtime, registry } = testRuntime();
    const tool = registry.get('query_order');
    if (tool === undefined) throw new Error('no tool');
    const head = { step: 1, toolCallId: 'c1', toolName: 'query_order', startedAt: 0 };
    const validated = { order_id: 'SO20260901', note: 'secret' };
    const call = bindToolCall(runtime, head, tool, validated, canonicalJson(validated));
    expect(call.argumentsHash).toBe(argumentsHash(call.args));
    expect(call.argumentsHash).not.toBe(argumentsHash(validated));
    call.releaseHistory();
  });

  it('hashes the canonical JSON it is handed for a tool that binds nothing: the hash of the arguments', () => {
    const { runtime, registry } = testRuntime();
    const queryOrder = registry.get('query_order');
    if (queryOrder === undefined) throw new Error('no tool');
    const definition = { ...queryOrder.definition };
    delete definition.boundParameters;
    const tool = { ...queryOrder, definition };
    const head = { step: 1, toolCallId: 'c1', toolName: 'query_order', startedAt: 0 };
    const validated = { b: [{ d: 2, c: 3 }], a: 'x' };
    const call = bindToolCall(runtime, head, tool, validated, canonicalJson(validated));
    expect(call.argumentsHash).toBe(argumentsHash(validated));
    call.releaseHistory();
  });

  it('hashes the arguments as they were bound, whatever the tool does to its arguments object later', () => {
    const { runtime, registry } = testRuntime();
    const tool = registry.get('query_order');
    if (tool === undefined) throw new Error('no tool');
    const head = { step: 1, toolCallId: 'c1', toolName: 'query_order', startedAt: 0 };
    const call = bindToolCall(runtime, head, tool, { order_id: 'SO20260901', note: 'secret' });
    const bound = argumentsHash(call.args);
    // The hash is taken when first read (after the tool ran, for a call nothing needed it for before).
    call.args['order_id'] = 'SO99999999';
    call.args['tenant_id'] = 'another_tenant';
    expect(call.argumentsHash).toBe(bound);
    expect(call.shownArguments).toMatchObject({ order_id: 'SO20260901', tenant_id: 'shop' });
    call.releaseHistory();
  });
});
