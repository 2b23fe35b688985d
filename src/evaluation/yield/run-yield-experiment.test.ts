import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import type { Model, ModelRequest, ModelResponse } from '../../models/model.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { createFixtureTools, type FixtureToolSpec } from '../fixture-tools.js';
import type { ErrorKind } from './error-kind.js';
import { type ExperimentRow, rowKey, runYieldExperiment, type YieldRow } from './run-yield-experiment.js';
import type { YieldCorpus } from './yield-corpus.js';

const specs = (JSON.parse(readFileSync('evals/yield/tools.json', 'utf8')) as { tools: FixtureToolSpec[] }).tools;

function shopRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of createFixtureTools(specs)) registry.register(tool);
  return registry;
}

/** A model that answers each turn with the next of `replies` (a call, or text), and keeps what it was shown. */
class ReplyingModel implements Model {
  readonly name = 'replying';
  readonly shown: (readonly ChatMessage[])[] = [];
  readonly #replies: readonly ({ name: string; arguments: string } | string)[];
  #turn = 0;
  constructor(replies: readonly ({ name: string; arguments: string } | string)[]) {
    this.#replies = replies;
  }
  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.shown.push(request.messages);
    const reply = this.#replies[Math.min(this.#turn, this.#replies.length - 1)] ?? '';
    this.#turn += 1;
    if (typeof reply === 'string') {
      return { message: { role: 'assistant', content: reply }, finishReason: 'stop', usage: usage(100, 5) };
    }
    return {
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: reply }] },
      finishReason: 'tool_calls',
      usage: usage(100, 10),
    };
  }
}

function usage(inputTokens: number, outputTokens: number) {
  return { inputTokens, outputTokens };
}

const intent = {
  id: 'query-0',
  user: 'Where is my order SO20260901?',
  user_zh: '我的订单 SO20260901 在哪？',
  tool: 'query_order',
  expected: { order_id: 'SO20260901' },
};

const brokenCall = {
  id: 'query-0:pattern:1',
  source: 'mutation' as const,
  user: intent.user,
  user_zh: intent.user_zh,
  tool: 'query_order',
  arguments: { order_id: '20260901' },
  intended_tool: 'query_order',
  expected: intent.expected,
};

async function run({
  model,
  corpus,
  done,
  firstCalls = 'none',
  shard,
  kinds,
  callIds,
}: {
  model: Model;
  corpus: YieldCorpus;
  done?: ReadonlyMap<string, ExperimentRow>;
  firstCalls?: 'both' | 'original' | 'strict' | 'none';
  shard?: { index: number; count: number };
  kinds?: readonly ErrorKind[];
  callIds?: readonly string[];
}): Promise<ExperimentRow[]> {
  const registry = shopRegistry();
  const rows: ExperimentRow[] = [];
  await runYieldExperiment({
    model,
    corpus,
    tools: registry.specs,
    registry,
    conditions: ['arbiter'],
    firstCalls,
    ...(done === undefined ? {} : { done }),
    ...(shard === undefined ? {} : { shard }),
    ...(kinds === undefined ? {} : { kinds }),
    ...(callIds === undefined ? {} : { callIds }),
    onRow: (row) => rows.push(row),
  });
  return rows;
}

describe('runYieldExperiment', () => {
  it("asks the model's own mistakes from its first-call rows when the first-call phase does not run", async () => {
    const firstCall: ExperimentRow = {
      phase: 'first_call',
      model: 'replying',
      tools: 'original',
      intent: 'query-0',
      outcome: 'invalid',
      kind: 'pattern',
      call: { name: 'query_order', arguments: '{"order_id":"SO2026091"}' },
      inputTokens: 100,
      outputTokens: 10,
    };
    const model = new ReplyingModel([{ name: 'query_order', arguments: '{"order_id":"SO20260901"}' }]);
    const rows = await run({
      model,
      corpus: { name: 'test', intents: [intent], calls: [] },
      done: new Map([[rowKey(firstCall), firstCall]]),
    });
    expect(rows).toMatchObject([{ phase: 'yield', call: 'own:query-0', source: 'own', outcome: 'corrected_1' }]);
    expect(model.shown[0]?.[2]).toMatchObject({
      tool_calls: [{ function: { name: 'query_order', arguments: '{"order_id":"SO2026091"}' } }],
    });
  });

  it('skips a broken call already answered in a condition', async () => {
    const model = new ReplyingModel(['prose']);
    const first = await run({ model, corpus: { name: 'test', intents: [intent], calls: [brokenCall] } });
    const again = await run({
      model,
      corpus: { name: 'test', intents: [intent], calls: [brokenCall] },
      done: new Map(first.map((row) => [rowKey(row), row] as const)),
    });
    expect(first).toHaveLength(1);
    expect(again).toEqual([]);
  });

  it('gives a second turn after a second refusal, and counts only the first next call as "next"', async () => {
    const model = new ReplyingModel([
      { name: 'query_order', arguments: '{"order_id":"20260901"}' },
      { name: 'query_order', arguments: '{"order_id":"SO20260901"}' },
    ]);
    const [row] = (await run({ model, corpus: { name: 'test', intents: [], calls: [brokenCall] } })) as YieldRow[];
    expect(row).toMatchObject({
      outcome: 'corrected_2',
      turns: 2,
      nextValid: false,
      nextRight: false,
      inputTokens: 200,
      outputTokens: 20,
      next: 'query_order {"order_id":"20260901"}',
    });
  });

  it('reads a valid call of other values as a wrong call, not a correction', async () => {
    const model = new ReplyingModel([{ name: 'query_order', arguments: '{"order_id":"SO20260902"}' }]);
    const [row] = (await run({ model, corpus: { name: 'test', intents: [], calls: [brokenCall] } })) as YieldRow[];
    expect(row).toMatchObject({ outcome: 'wrong_call', turns: 1, nextValid: true, nextRight: false });
  });

  it('shares the broken calls between shards without overlap', async () => {
    const calls = ['a', 'b', 'c'].map((id) => ({ ...brokenCall, id }));
    const corpus = { name: 'test', intents: [], calls };
    const asked = async (index: number) =>
      (await run({ model: new ReplyingModel(['prose']), corpus, shard: { index, count: 2 } })).map((row) =>
        row.phase === 'yield' ? row.call : '',
      );
    expect(await asked(1)).toEqual(['a', 'c']);
    expect(await asked(2)).toEqual(['b']);
  });

  it('asks only the broken calls of the kinds given, the others not at all', async () => {
    const missing = { ...brokenCall, id: 'missing', arguments: {} };
    const corpus = { name: 'test', intents: [], calls: [brokenCall, missing] };
    const asked = async (kinds?: readonly ErrorKind[]) =>
      (await run({ model: new ReplyingModel(['prose']), corpus, ...(kinds === undefined ? {} : { kinds }) })).map(
        (row) => (row.phase === 'yield' ? `${row.call} ${row.kind}` : ''),
      );
    expect(await asked()).toEqual(['query-0:pattern:1 pattern', 'missing missing_field']);
    expect(await asked(['missing_field'])).toEqual(['missing missing_field']);
    expect(await asked(['enum'])).toEqual([]);
  });

  it('asks only the broken calls with the ids given, and refuses an id that names none', async () => {
    const missing = { ...brokenCall, id: 'missing', arguments: {} };
    const corpus = { name: 'test', intents: [], calls: [brokenCall, missing] };
    const rows = await run({ model: new ReplyingModel(['prose']), corpus, callIds: ['missing'] });
    expect(rows.map((row) => (row.phase === 'yield' ? row.call : ''))).toEqual(['missing']);
    await expect(run({ model: new ReplyingModel(['prose']), corpus, callIds: ['missing', 'typo'] })).rejects.toThrow(
      '--calls: no refused call with id "typo"',
    );
    await expect(
      run({ model: new ReplyingModel(['prose']), corpus, callIds: ['missing'], kinds: ['pattern'] }),
    ).rejects.toThrow('--calls: "missing" left out by --limit or --kinds');
  });
});
