/**
 * The README's "Choosing the API" snippets as a reader uses them: the shell
 * block's variables (its endpoint pointed at a local fake server) choose the
 * Responses API for the configured model, and the TypeScript block, written
 * to a file and imported, is a resilient Responses client whose fallback
 * answers when the primary keeps failing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConfiguredModel } from '../../src/models/create-configured-model.js';
import type { Model } from '../../src/models/model.js';
import { type FakeChatServer, startFakeChatServer } from '../../src/models/test-support/fake-chat-server.js';
import { readmeSnippets } from './readme-snippets.js';

const section = 'Choosing the API';
const blocks = (language: string) =>
  readmeSnippets({ file: 'docs/models.md' }).filter(
    (snippet) => snippet.section === section && snippet.language === language,
  );
const messages = [{ role: 'user' as const, content: 'Where is order SO20260901?' }];

let server: FakeChatServer | undefined;
const saved = { ...process.env };

afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** The `export NAME=value` lines of the shell block. */
function exportedVariables(code: string): Record<string, string> {
  return Object.fromEntries(
    [...code.matchAll(/^export (\w+)=(.*)$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']),
  );
}

describe('the README "Choosing the API" snippets', () => {
  it('ARBITER_API=responses as the shell block sets it sends the configured model to the Responses API', async () => {
    const [shell] = blocks('sh');
    if (shell === undefined) throw new Error(`README "${section}" has no sh block`);
    const variables = exportedVariables(shell.code);
    expect(variables).toMatchObject({ ARBITER_API: 'responses', ARBITER_MODEL: 'gpt-5-mini' });
    server = await startFakeChatServer({ respond: [{ kind: 'response', text: 'It shipped.' }] });

    const model = createConfiguredModel({
      env: { ...variables, ARBITER_BASE_URL: server.url, ARBITER_API_KEY: 'sk-test' },
    });
    const response = await model.generate({ messages, tools: [] });

    expect(response.message.content).toBe('It shipped.');
    expect(server.requests.map((request) => [request.path, (request.body as { model: string }).model])).toEqual([
      ['/v1/responses', 'gpt-5-mini'],
    ]);
  });

  it('the TypeScript block is a resilient Responses client that falls back after repeated 500s', async () => {
    const [snippet, ...others] = blocks('ts');
    expect(others).toEqual([]);
    if (snippet === undefined) throw new Error(`README "${section}" has no ts block`);
    expect(snippet.fileName).toBe('model.ts');
    server = await startFakeChatServer({
      respond: (request) =>
        (request.body as { model: string }).model === 'gpt-5-mini'
          ? { kind: 'error', status: 500 }
          : { kind: 'response', text: 'Answered by gpt-5-nano.' },
    });
    Object.assign(process.env, {
      ARBITER_BASE_URL: server.url,
      ARBITER_API_KEY: 'sk-test',
      ARBITER_MODEL: 'gpt-5-mini',
    });
    mkdirSync('.arbiter', { recursive: true });
    const directory = mkdtempSync(join(process.cwd(), '.arbiter', 'readme-api-'));
    try {
      writeFileSync(join(directory, 'model.ts'), snippet.code);
      const { model } = (await import(join(directory, 'model.ts'))) as { model: Model };
      const response = await model.generate({ messages, tools: [] });
      expect(response.message.content).toBe('Answered by gpt-5-nano.');
      expect(response.model).toBe('gpt-5-nano');
      expect(server.requests.map((request) => [request.path, (request.body as { model: string }).model])).toEqual([
        ['/v1/responses', 'gpt-5-mini'],
        ['/v1/responses', 'gpt-5-mini'],
        ['/v1/responses', 'gpt-5-mini'],
        ['/v1/responses', 'gpt-5-nano'],
      ]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
