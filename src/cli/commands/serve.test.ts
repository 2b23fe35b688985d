import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Model } from '../../models/model.js';
import { parseServeFlags, serveOptions } from './serve.js';

const directory = mkdtempSync(join(tmpdir(), 'arbiter-serve-latency-'));
const script = join(directory, 'script.json');
writeFileSync(
  script,
  JSON.stringify({ name: 'hello', turns: [{ steps: [{ say: 'Hello there, your order is on its way to you.' }] }] }),
);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function scriptedModel(environment: Record<string, string>): Promise<Model> {
  const { options } = await serveOptions(parseServeFlags(['--data-dir', directory, '--script', script]), environment);
  return options.model as Model;
}

describe('serve --script with ARBITER_SCRIPTED_LATENCY_MS', () => {
  it('takes that long per call and hands out the text at once, not paced for a person', async () => {
    const model = await scriptedModel({ ARBITER_SCRIPTED_LATENCY_MS: '40' });
    const arrivals: number[] = [];
    const startedAt = performance.now();
    await model.generate({
      messages: [{ role: 'user', content: 'Where is my order?' }],
      tools: [],
      onTextDelta: () => arrivals.push(performance.now() - startedAt),
    });
    expect(arrivals.length).toBeGreaterThan(1);
    expect(arrivals[0]).toBeGreaterThanOrEqual(35);
    // Paced for a person, the fragments would come 15 ms apart.
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeLessThan(10);
  });

  it('refuses a latency that is not a whole number of milliseconds', async () => {
    await expect(scriptedModel({ ARBITER_SCRIPTED_LATENCY_MS: 'fast' })).rejects.toThrow(
      'ARBITER_SCRIPTED_LATENCY_MS must be a whole number',
    );
  });
});
