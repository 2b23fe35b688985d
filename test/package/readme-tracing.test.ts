/**
 * The README's "Tracing" snippet as a reader pastes it: written to a file,
 * its package imports pointed at this checkout's sources, run with Node
 * (tsx) in a process of its own (the snippet registers global providers)
 * beside a scripted run on its `events`; the console exporters' output must
 * show the GenAI spans and metrics, and none of the run's secrets.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeSnippets } from './readme-snippets.js';

const checkout = process.cwd();

function pointAtSources(code: string, directory: string): string {
  const source = (file: string) => relative(directory, join(checkout, 'src', file)).replaceAll('\\', '/');
  return code
    .replace(/from '@arbiter-runtime\/core\/(\w+)'/g, (_whole, name: string) => `from '${source(`${name}.ts`)}'`)
    .replace(/from '@arbiter-runtime\/core'/g, `from '${source('index.ts')}'`);
}

const driver = `import { defineTool, runAgent, ToolRegistry } from '@arbiter-runtime/core';
import { ScriptedModel } from '@arbiter-runtime/core/testing';
import { events, meterProvider, tracerProvider } from './tracing.js';

const tools = new ToolRegistry().register(
  defineTool<{ email: string }>({
    name: 'send_receipt',
    description: 'Email the receipt. Not for refunds.',
    parameters: { type: 'object', properties: { email: { type: 'string', description: 'Address' } }, required: ['email'] },
    sideEffect: 'reversible',
    execute: () => ({ sent: true }),
  }),
);
const model = new ScriptedModel({
  script: { name: 'receipt', turns: [{ steps: [{ call: { name: 'send_receipt', arguments: { email: 'jane.doe@example.com' } } }, { say: 'Sent.' }] }] },
});
const result = await runAgent({ model, tools, sessionId: 'sess-7', events, messages: [{ role: 'user', content: 'Receipt to jane.doe@example.com' }] });
await new Promise((resolve) => setImmediate(resolve));
await tracerProvider.forceFlush();
await meterProvider.forceFlush();
console.log(\`stop reason: \${result.stopReason}\`);
await tracerProvider.shutdown();
await meterProvider.shutdown();
`;

describe('the README "Tracing" snippet', () => {
  it("runs as pasted and exports GenAI spans and metrics, without the run's secrets", () => {
    const [snippet, ...others] = readmeSnippets({ file: 'docs/tracing.md' }).filter(
      (candidate) => candidate.section === 'Tracing' && candidate.language === 'ts',
    );
    expect(others).toEqual([]);
    if (snippet === undefined) throw new Error('README "Tracing" has no ts block');
    expect(snippet.fileName).toBe('tracing.ts');

    // Inside the checkout, so the snippet resolves the checkout's packages; a fresh clone has no .arbiter yet.
    mkdirSync(join(checkout, '.arbiter'), { recursive: true });
    const directory = mkdtempSync(join(checkout, '.arbiter', 'readme-tracing-'));
    try {
      writeFileSync(join(directory, 'tracing.ts'), pointAtSources(snippet.code, directory));
      writeFileSync(join(directory, 'main.ts'), pointAtSources(driver, directory));
      const run = spawnSync(process.execPath, ['--import', 'tsx', join(directory, 'main.ts')], {
        cwd: checkout,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.status, output).toBe(0);
      expect(output).toContain('stop reason: completed');
      expect(output).not.toContain('tracing is off');

      const spanId = (name: string) => new RegExp(`name: '${name}',\\s+id: '([0-9a-f]{16})'`).exec(output)?.[1];
      const root = spanId('invoke_agent shop-assistant');
      expect(root).toMatch(/^[0-9a-f]{16}$/);
      for (const name of ['chat scripted:receipt', 'execute_tool send_receipt']) {
        const block = new RegExp(
          `parentSpanContext: \\{[^}]*spanId: '${root}'[^}]*\\},\\s+(?:traceState: [^,]*,\\s+)?name: '${name}'`,
        );
        expect(output, name).toMatch(block);
      }
      for (const attribute of [
        "'gen_ai.operation.name': 'invoke_agent'",
        "'gen_ai.operation.name': 'chat'",
        "'gen_ai.operation.name': 'execute_tool'",
        "'gen_ai.provider.name': 'openai'",
        "'gen_ai.conversation.id': 'sess-7'",
        "'gen_ai.tool.name': 'send_receipt'",
        "'arbiter.stop_reason': 'completed'",
      ]) {
        expect(output).toContain(attribute);
      }
      expect(output).toContain("name: 'gen_ai.client.token.usage'");
      expect(output).toContain("name: 'gen_ai.client.operation.duration'");
      expect(output).not.toContain('jane.doe@example.com');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 90_000);
});
