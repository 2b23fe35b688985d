import { describe, expect, it } from 'vitest';
import type { Principal } from '../core/principal.js';
import { runSession } from '../loop/run-session.js';
import { undoToolCall } from '../loop/undo-tool-call.js';
import type { Model } from '../models/model.js';
import { openSqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import { callsWithIds, statelessModel, toolMessage } from '../store/sqlite/test-support/gate-harness.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { conversationFromSessions, createMemoryTools } from './create-memory-tools.js';
import { createHashingEmbedder } from './embedder.js';

const alice: Principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };
const bob: Principal = { tenantId: 'shop', userId: 'C1002', roles: ['customer'] };

function setUp({ embedder = false }: { embedder?: boolean } = {}) {
  const backend = openSqliteBackend({ path: ':memory:' });
  const tools = new ToolRegistry();
  for (const tool of createMemoryTools({
    memory: backend.memory,
    conversation: conversationFromSessions(backend.sessions),
    ...(embedder ? { embedder: createHashingEmbedder() } : {}),
  })) {
    tools.register(tool);
  }
  const run = async ({
    principal,
    userMessage,
    model,
  }: {
    principal?: Principal;
    userMessage: string;
    model: Model;
  }) => {
    const session = await backend.sessions.create(principal === undefined ? {} : { principal });
    return runSession({
      sessions: backend.sessions,
      sessionId: session.id,
      userMessage,
      model,
      tools,
      audit: backend.audit,
      ...(principal === undefined ? {} : { principal }),
    });
  };
  return { backend, tools, run };
}

describe('createMemoryTools', () => {
  it('hides the owner from the model and binds it from the principal, whatever the model sends', async () => {
    const { backend, tools, run } = setUp();
    const spec = tools.get('save_fact')?.spec;
    expect(JSON.stringify(spec)).not.toContain('tenant_id');
    expect(JSON.stringify(tools.get('recall_facts')?.spec)).not.toContain('user_id');
    const result = await run({
      principal: alice,
      userMessage: 'I live in Shanghai now.',
      model: statelessModel([
        callsWithIds([
          'call_1',
          'save_fact',
          // The model tries to write into Bob's (and another tenant's) memory.
          { key: 'city', value: 'Shanghai', learned_from: 'user', tenant_id: 'other', user_id: 'C1002' },
        ]),
      ]),
    });
    expect(JSON.parse(toolMessage(result.messages, 'call_1') ?? '{}')).toMatchObject({
      key: 'city',
      value: 'Shanghai',
      trusted: true,
      unchanged: false,
    });
    expect(await backend.memory.list({ tenantId: 'shop', userId: 'C1002' })).toEqual([]);
    expect(await backend.memory.list({ tenantId: 'other', userId: 'C1002' })).toEqual([]);
    expect(await backend.memory.list({ tenantId: 'shop', userId: 'C1001' })).toMatchObject([
      {
        key: 'city',
        value: 'Shanghai',
        trusted: true,
        source: { kind: 'user', runId: result.runId, callId: 'call_1' },
      },
    ]);
  });

  it('trusts a fact as the user’s only when the user said it; a claim the user never made is stored untrusted', async () => {
    const { backend, run } = setUp();
    await run({
      principal: alice,
      userMessage: 'Please note my shirt size is M.',
      model: statelessModel([
        callsWithIds(
          ['call_size', 'save_fact', { key: 'shirt_size', value: 'm', learned_from: 'user' }],
          ['call_vip', 'save_fact', { key: 'vip_level', value: 'platinum', learned_from: 'user' }],
          [
            'call_tool',
            'save_fact',
            { key: 'segment', value: 'wholesale', learned_from: 'tool_result', from_tool: 'crm' },
          ],
        ),
      ]),
    });
    const facts = await backend.memory.list({ tenantId: 'shop', userId: 'C1001' });
    expect(facts.map(({ key, trusted, source }) => ({ key, trusted, kind: source.kind, tool: source.tool }))).toEqual([
      { key: 'shirt_size', trusted: true, kind: 'user', tool: undefined },
      { key: 'vip_level', trusted: false, kind: 'model', tool: undefined },
      { key: 'segment', trusted: false, kind: 'tool', tool: 'crm' },
    ]);
  });

  it('checks the user’s words as whole words, and Chinese as text without spaces', async () => {
    const { backend, run } = setUp();
    await run({
      principal: alice,
      userMessage: 'My name is Tom, 我住在上海市。',
      model: statelessModel([
        callsWithIds(
          ['call_size', 'save_fact', { key: 'shirt_size', value: 'm', learned_from: 'user' }],
          ['call_city', 'save_fact', { key: 'city', value: '上海', learned_from: 'user' }],
          ['call_name', 'save_fact', { key: 'name', value: 'tom', learned_from: 'user' }],
        ),
      ]),
    });
    const facts = await backend.memory.list({ tenantId: 'shop', userId: 'C1001' });
    expect(facts.map(({ key, trusted }) => [key, trusted])).toEqual([
      ['shirt_size', false],
      ['city', true],
      ['name', true],
    ]);
  });

  it('takes the same value from a tool as unchanged when the user already said it', async () => {
    const { backend, run } = setUp();
    await run({
      principal: alice,
      userMessage: 'My city is Hangzhou.',
      model: statelessModel([
        callsWithIds(['call_1', 'save_fact', { key: 'city', value: 'Hangzhou', learned_from: 'user' }]),
      ]),
    });
    const result = await run({
      principal: alice,
      userMessage: 'Check the CRM.',
      model: statelessModel([
        callsWithIds(['call_2', 'save_fact', { key: 'city', value: 'Hangzhou', learned_from: 'tool_result' }]),
      ]),
    });
    expect(JSON.parse(toolMessage(result.messages, 'call_2') ?? '{}')).toMatchObject({
      unchanged: true,
      trusted: true,
    });
    expect(await backend.memory.list({ ...alice, history: true })).toHaveLength(1);
  });

  it('never lets an untrusted value replace what the user said, and tells the model once', async () => {
    const { backend, run } = setUp();
    await run({
      principal: alice,
      userMessage: 'My city is Hangzhou.',
      model: statelessModel([
        callsWithIds(['call_1', 'save_fact', { key: 'city', value: 'Hangzhou', learned_from: 'user' }]),
      ]),
    });
    const result = await run({
      principal: alice,
      userMessage: 'What does the CRM say?',
      model: statelessModel([
        callsWithIds(['call_2', 'save_fact', { key: 'city', value: 'Beijing', learned_from: 'tool_result' }]),
      ]),
    });
    expect(toolMessage(result.messages, 'call_2')).toMatchInlineSnapshot(
      `"Refused (fact_said_by_user): The user told us "city" themselves; a value from a tool result or an inference does not replace it. Ask the user if it changed. Do not call save_fact again for this; tell the user what happened."`,
    );
    expect((await backend.memory.list({ tenantId: 'shop', userId: 'C1001' })).map((fact) => fact.value)).toEqual([
      'Hangzhou',
    ]);
  });

  it('recalls only the caller’s facts, dated, with their provenance', async () => {
    const { backend, run } = setUp();
    backend.memory.save({ ...bob, key: 'city', value: 'Shenzhen', source: { kind: 'user' }, trusted: true });
    backend.memory.save({ ...alice, key: 'city', value: 'Shanghai', source: { kind: 'user' }, trusted: true });
    const result = await run({
      principal: alice,
      userMessage: 'Where do I live?',
      model: statelessModel([
        callsWithIds([
          'call_1',
          'recall_facts',
          { query: 'city Shenzhen Shanghai', user_id: 'C1002', tenant_id: 'shop' },
        ]),
      ]),
    });
    const recalled = JSON.parse(toolMessage(result.messages, 'call_1') ?? '{}') as {
      facts: { value: string; statement: string; verified: boolean }[];
    };
    expect(recalled.facts.map((fact) => fact.value)).toEqual(['Shanghai']);
    expect(recalled.facts[0]?.statement).toMatch(/^as of \d{4}-\d{2}-\d{2}, the customer said: city = Shanghai$/);
  });

  it('refuses both tools without a principal: memory never falls back to a shared owner', async () => {
    const { backend, run } = setUp();
    const result = await run({
      userMessage: 'Remember I like tea.',
      model: statelessModel([
        callsWithIds(
          [
            'call_1',
            'save_fact',
            { key: 'drink', value: 'tea', learned_from: 'user', tenant_id: 'shop', user_id: 'C1001' },
          ],
          ['call_2', 'recall_facts', { query: 'tea' }],
        ),
      ]),
    });
    expect(toolMessage(result.messages, 'call_1')).toMatchInlineSnapshot(
      `"Refused (memory_needs_user): Memory is only available in a conversation with a signed-in user. Do not call save_fact again for this; tell the user what happened."`,
    );
    expect(toolMessage(result.messages, 'call_2')).toContain('Refused (memory_needs_user)');
    expect(await backend.memory.list({ tenantId: 'shop', userId: 'C1001' })).toEqual([]);
  });

  it('undoes a save with undoToolCall: the previous value is current again, the undone one kept and audited', async () => {
    const { backend, tools, run } = setUp();
    await run({
      principal: alice,
      userMessage: 'I live in Beijing.',
      model: statelessModel([
        callsWithIds(['call_1', 'save_fact', { key: 'city', value: 'Beijing', learned_from: 'user' }]),
      ]),
    });
    await run({
      principal: alice,
      userMessage: 'I moved to Shenzhen.',
      model: statelessModel([
        callsWithIds(['call_2', 'save_fact', { key: 'city', value: 'Shenzhen', learned_from: 'user' }]),
      ]),
    });
    await undoToolCall({
      audit: backend.audit,
      sessions: backend.sessions,
      tools,
      toolCallId: 'call_2',
      undoneBy: 'C1001',
    });
    expect((await backend.memory.list({ ...alice })).map((fact) => fact.value)).toEqual(['Beijing']);
    expect(
      (await backend.memory.list({ ...alice, history: true })).map((fact) => [
        fact.value,
        fact.retractedAt !== undefined,
      ]),
    ).toEqual([
      ['Beijing', false],
      ['Shenzhen', true],
    ]);
    expect(backend.audit.listAudit({ toolCallId: 'call_2' }).map((entry) => entry.outcome)).toEqual(['ok', 'undone']);
  });

  it('saves the same value twice without a new version, and undoing the repeat changes nothing', async () => {
    const { backend, tools, run } = setUp();
    for (const id of ['call_1', 'call_2']) {
      await run({
        principal: alice,
        userMessage: 'I like green tea.',
        model: statelessModel([
          callsWithIds([id, 'save_fact', { key: 'drink', value: 'green tea', learned_from: 'user' }]),
        ]),
      });
    }
    await undoToolCall({
      audit: backend.audit,
      sessions: backend.sessions,
      tools,
      toolCallId: 'call_2',
      undoneBy: 'C1001',
    });
    expect((await backend.memory.list({ ...alice, history: true })).map((fact) => fact.value)).toEqual(['green tea']);
    expect(await backend.memory.list({ ...alice })).toHaveLength(1);
  });

  it('recalls by meaning with an embedder when the words differ, and still only the caller’s', async () => {
    const { backend, run } = setUp({ embedder: true });
    const embedder = createHashingEmbedder();
    for (const [owner, key, value] of [
      [alice, 'drink', 'green tea no sugar'],
      [alice, 'size', 'M'],
      [bob, 'drink', 'green tea with milk'],
    ] as const) {
      const [embedding] = await embedder.embed([`${key} ${value}`]);
      backend.memory.save({
        ...owner,
        key,
        value,
        source: { kind: 'user' },
        trusted: true,
        embedding: embedding ?? [],
      });
    }
    const result = await run({
      principal: alice,
      userMessage: 'What do I drink?',
      model: statelessModel([callsWithIds(['call_1', 'recall_facts', { query: 'drink preference sugar' }])]),
    });
    const recalled = JSON.parse(toolMessage(result.messages, 'call_1') ?? '{}') as { facts: { value: string }[] };
    expect(recalled.facts.map((fact) => fact.value)).toEqual(['green tea no sugar']);
  });
});
