/**
 * The package as another project gets it: `npm pack`, installed into a
 * fresh ESM project with a strict `NodeNext` tsconfig (the README's own),
 * the README's TypeScript snippets compiled there against the packed types
 * (a missing `exports` entry, a wrong package name, types that need an
 * undeclared `@types/…` all fail `tsc`), then run: an agent on the
 * scripted model through both entry points, and the installed `arbiter`
 * binary serving the README's tools module with its script.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTarball } from './install-tarball.js';
import { type PackedPackage, packPackage } from './pack-package.js';
import { type ReadmeSnippet, readmeSnippets } from './readme-snippets.js';

const checkout = process.cwd();
const packageName = (JSON.parse(readFileSync('package.json', 'utf8')) as { name: string }).name;
const useSection = 'Use it in your project';
/** Sections whose TypeScript blocks are whole programs a reader can paste (the others are excerpts). */
const compiledSections = [useSection, 'Defining a tool', 'A real model'];
/** What the "Defining a tool" excerpt leaves to the reader's application. */
const preludes: Record<string, string> = {
  'Defining a tool': [
    `import type { Model, RunResult } from '${packageName}';`,
    'declare const orders: { find(query: { tenant_id: string; customer_id: string; order_id: string }): object | undefined };',
    'declare const model: Model;',
    'declare function reply(text: string | undefined): void;',
    'declare function handOffToPerson(result: RunResult): void;',
    '',
  ].join('\n'),
};

const snippets = readmeSnippets({ file: 'README.md' });
const sectionSnippets = (section: string, language: string): ReadmeSnippet[] =>
  snippets.filter((snippet) => snippet.section === section && snippet.language === language);

/** The consumer's own check: both entry points, an agent on the README's script, a server. */
const consumerCheck = `import { readFileSync } from 'node:fs';
import { type Script, ScriptedModel, ToolRegistry, runAgent } from '${packageName}';
import { startServer } from '${packageName}/server';
import { createTools } from './tools.js';

const script = JSON.parse(readFileSync('time.json', 'utf8')) as Script;
const registry = new ToolRegistry();
for (const tool of createTools()) registry.register(tool);
const result = await runAgent({
  model: new ScriptedModel({ script }),
  tools: registry,
  messages: [{ role: 'user', content: 'What time is it in Tokyo?' }],
});
const running = await startServer({
  port: 0,
  dataDir: ':memory:',
  tools: createTools(),
  model: new ScriptedModel({ script }),
  streamingDelay: false,
});
const health = await fetch(\`\${running.url}/healthz\`);
await running.close();
console.log(JSON.stringify({ stopReason: result.stopReason, text: result.text, health: health.status }));
`;

let directory: string;
let packed: PackedPackage;
let consumer: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'arbiter-package-'));
  packed = packPackage({ root: checkout, into: directory });
  consumer = join(directory, 'consumer');
  installTarball({
    tarball: packed.tarball,
    name: packed.name,
    consumer,
    checkout,
    // What the README tells a TypeScript project to add beside the package.
    devDependencies: ['@types/node'],
  });
}, 240_000);

afterAll(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

describe('the packed package in a consumer project', () => {
  it('is installed under the name the README imports', () => {
    const imported = snippets
      .filter((snippet) => snippet.language === 'ts')
      .flatMap((snippet) => [...snippet.code.matchAll(/from '([^'.][^']*)'/g)].map((match) => match[1]))
      .filter((specifier) => specifier !== undefined && !specifier.startsWith('node:'));
    expect(imported.length).toBeGreaterThan(0);
    expect(new Set(imported.map((specifier) => specifier?.replace(/\/server$/, '')))).toEqual(new Set([packed.name]));
    expect(packed.files).toContain('dist/src/server/index.d.ts');
  });

  it("compiles the README's snippets with the README's strict tsconfig and runs both entry points", () => {
    const [tsconfig, ...otherJson] = sectionSnippets(useSection, 'json').filter((snippet) =>
      snippet.code.includes('"compilerOptions"'),
    );
    const script = sectionSnippets(useSection, 'json').find((snippet) => snippet.code.includes('"turns"'));
    if (tsconfig === undefined || script === undefined || otherJson.length > 0) {
      throw new Error(`"${useSection}" must show one tsconfig.json and one script (JSON blocks)`);
    }
    writeFileSync(join(consumer, 'tsconfig.json'), tsconfig.code);
    writeFileSync(join(consumer, 'time.json'), script.code);
    for (const section of compiledSections) {
      const blocks = sectionSnippets(section, 'ts');
      expect(blocks.length, `TypeScript blocks in "${section}"`).toBeGreaterThan(0);
      blocks.forEach((snippet, index) => {
        const file = snippet.fileName ?? `readme-${section.toLowerCase().replaceAll(/\W+/g, '-')}-${index + 1}.ts`;
        writeFileSync(join(consumer, file), `${preludes[section] ?? ''}${snippet.code}`);
      });
    }
    writeFileSync(join(consumer, 'check.ts'), consumerCheck);

    const compile = spawnOutput(process.execPath, [join(checkout, 'node_modules/typescript/bin/tsc'), '-p', '.']);
    expect(compile.output).toBe('');
    expect(compile.code).toBe(0);

    const check = spawnOutput(process.execPath, ['dist/check.js']);
    expect(check.code, check.output).toBe(0);
    const outcome = JSON.parse(check.output.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(outcome).toMatchObject({ stopReason: 'completed', health: 200 });
    expect(outcome['text']).toMatch(/^In Asia\/Tokyo it is \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}\.$/);
  }, 180_000);

  it("serves the README's tools module and script with the installed arbiter binary", async () => {
    // Built by the previous test: dist/tools.js, time.json.
    const server = spawn(
      join(consumer, 'node_modules/.bin/arbiter'),
      [
        'serve',
        ...['--tools', 'dist/tools.js', '--script', 'time.json', '--port', '0', '--data-dir', join(directory, 'serve')],
      ],
      { cwd: consumer, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          const listening = /listening on (http:\/\/\S+)/.exec(output);
          if (listening?.[1] !== undefined) resolve(listening[1]);
        };
        server.stdout.on('data', read);
        server.stderr.on('data', read);
        void exited.then((code) => reject(new Error(`arbiter serve exited (${code}) before listening:\n${output}`)));
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      server.kill('SIGTERM');
      expect(await exited, output).toBe(0);
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
  }, 60_000);
});

function spawnOutput(command: string, args: readonly string[]): { code: number; output: string } {
  try {
    const output = execFileSync(command, args, { cwd: consumer, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, output };
  } catch (error) {
    const { status, stdout = '', stderr = '' } = error as { status?: number | null; stdout?: string; stderr?: string };
    return { code: status ?? 1, output: `${stdout}${stderr}` };
  }
}
