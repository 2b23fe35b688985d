/**
 * The package as another project gets it: `npm pack`, installed into a
 * fresh ESM project with a strict `NodeNext` tsconfig (the README's own),
 * the documentation's TypeScript snippets (README.md, docs/) compiled there against the packed types
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
import { docsSnippets, type ReadmeSnippet } from './readme-snippets.js';

const checkout = process.cwd();
const packageName = (JSON.parse(readFileSync('package.json', 'utf8')) as { name: string }).name;
const useSection = 'Use it in your project';
/** Sections whose TypeScript blocks are whole programs a reader can paste (the others are excerpts). */
const compiledSections = [
  'A complete example',
  useSection,
  'Defining a tool',
  'A real model',
  'Choosing the API',
  "Use an MCP server's tools",
];
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

const snippets = docsSnippets();
/** The package's entry points beside the root, as its `exports` map names them. */
const subpaths = [
  'sqlite',
  'postgres',
  'openai',
  'server',
  'mcp',
  'a2a',
  'evaluation',
  'observe',
  'testing',
  'ai-sdk',
  'openai-agents',
  'dbos',
  'restate',
] as const;
/** Packages the docs' programs import that are the reader's own choice: schema libraries, the other loops, tracing. */
const readersOwn =
  /^(@opentelemetry\/|zod$|valibot$|@valibot\/|arktype$|ai$|ai\/|@ai-sdk\/|@openai\/agents$|@dbos-inc\/|@restatedev\/)/;
const subpathPattern = new RegExp(`/(${subpaths.join('|')})$`);
const sectionSnippets = (section: string, language: string): ReadmeSnippet[] =>
  snippets.filter((snippet) => snippet.section === section && snippet.language === language);

/** The consumer's own check: both entry points, an agent on the README's script, a server. */
const consumerCheck = `import { readFileSync } from 'node:fs';
import { ToolRegistry, runAgent } from '${packageName}';
import { startServer } from '${packageName}/server';
import { type Script, ScriptedModel } from '${packageName}/testing';
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

/** A few names of each entry point, as a user imports them. */
const entryNames: Record<string, readonly string[]> = {
  '': ['defineTool', 'ToolRegistry', 'runAgent', 'runSession', 'resumeAfterApproval', 'undoToolCall', 'createTierGate'],
  '/sqlite': [
    'openSqliteStore',
    'SqliteSessionStore',
    'SqliteApprovalBroker',
    'SqliteAuditLog',
    'SqliteIdempotencyStore',
  ],
  '/postgres': ['openPostgresBackend', 'PostgresSessionStore', 'PostgresApprovalBroker', 'PostgresAuditLog'],
  '/openai': ['OpenAiModel', 'createConfiguredModel', 'checkModelEndpoint', 'readModelConfig'],
  '/server': ['startServer', 'createServer', 'loadToolsModule', 'readAuthConfig'],
  '/mcp': [
    'mountMcpServers',
    'McpServerMount',
    'readMcpConfig',
    'McpConnectionError',
    'createArbiterMcpServer',
    'createMcpHttpRoute',
    'callToolThroughGate',
  ],
  '/evaluation': ['loadSuite', 'runSuite', 'formatSuiteReport', 'compareWithBaseline', 'builtInRoutingSet'],
  '/observe': ['createTraceWriter', 'createProgressPrinter', 'computeMetrics', 'startOpenTelemetry'],
  '/testing': ['ScriptedModel', 'createFixtureTools', 'createMemoryJournal'],
};
/** Names that are arbiter's own business: on no entry point. */
const internals = [
  'runBatch',
  'runToolCall',
  'CallBrakes',
  'createStreamAssembler',
  'renderTable',
  'formatPercent',
  'loopTexts',
  'gateTexts',
  'eventTexts',
  'UsageError',
  'mcpToolResult',
  'runMcpServe',
];
/** A strict NodeNext project, as the README's, checking only entries.ts. */
const entriesTsconfig = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  },
  files: ['entries.ts'],
};
/** Uses every subpath the way an application does; type-checked, not run. */
const entriesProgram = `import { defineTool, EventBus, type GateRule, runAgent, ToolRegistry } from '${packageName}';
import { type EvalToolkitFactory, loadSuite, runSuite } from '${packageName}/evaluation';
import { createArbiterMcpServer, type McpServerConfig, McpServerMount } from '${packageName}/mcp';
import { createProgressPrinter, createTraceWriter } from '${packageName}/observe';
import { createConfiguredModel } from '${packageName}/openai';
import { startServer } from '${packageName}/server';
import { openPostgresBackend, type PostgresBackend } from '${packageName}/postgres';
import { openSqliteStore, SqliteApprovalBroker, SqliteSessionStore } from '${packageName}/sqlite';
import { type Script, ScriptedModel } from '${packageName}/testing';

const echo = defineTool<{ text: string }>({
  name: 'echo',
  description: 'Says the text back.',
  parameters: { type: 'object', properties: { text: { type: 'string', description: 'What to say' } }, required: ['text'] },
  sideEffect: 'read',
  execute: ({ text }) => ({ text }),
});
const gateRules: GateRule[] = [];
const store = openSqliteStore({ path: ':memory:' });
const sessions = new SqliteSessionStore({ database: store.database });
const approvals = new SqliteApprovalBroker({ database: store.database });
const script: Script = { name: 'echo', turns: [{ steps: [{ say: 'hello' }] }] };
const printer = createProgressPrinter({ write: (text) => process.stdout.write(text) });
const files: McpServerConfig = { name: 'files', command: 'mcp-server-filesystem', args: ['/tmp'] };
export async function main(): Promise<void> {
  const events = new EventBus();
  const trace = createTraceWriter({ bus: events, write: () => {} });
  events.subscribe(printer.listener);
  const result = await runAgent({
    model: process.env['ARBITER_MODEL'] === undefined ? new ScriptedModel({ script }) : createConfiguredModel(),
    tools: new ToolRegistry().register(echo),
    messages: [{ role: 'user', content: 'hi' }],
    approvals,
    events,
  });
  trace.stop();
  const mounted = await McpServerMount.open({ server: files });
  mounted.attach(new ToolRegistry());
  await mounted.close();
  const toolkit: EvalToolkitFactory = () => ({ tools: [echo], gateRules, state: () => ({}) });
  await runSuite({ suite: loadSuite({ directory: 'evals' }), toolkits: { echo: toolkit } });
  const running = await startServer({ port: 0, dataDir: ':memory:', tools: [echo], gateRules, model: new ScriptedModel({ script }) });
  await running.close();
  const postgres: PostgresBackend | undefined = process.env['ARBITER_STORE_URL']
    ? await openPostgresBackend({ connectionString: process.env['ARBITER_STORE_URL'], schema: 'arbiter' })
    : undefined;
  await postgres?.close();
  void sessions;
  void printer;
  void createArbiterMcpServer;
  void result.stopReason;
}
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
      .filter((specifier) => specifier !== undefined && !specifier.startsWith('node:'))
      // The reader's own, optional: OpenTelemetry ("Tracing"), a schema library, the AI SDK or OpenAI Agents.
      .filter((specifier) => specifier !== undefined && !readersOwn.test(specifier));
    expect(imported.length).toBeGreaterThan(0);
    expect(new Set(imported.map((specifier) => specifier?.replace(subpathPattern, '')))).toEqual(
      new Set([packed.name]),
    );
    for (const subpath of subpaths) expect(packed.files).toContain(`dist/src/${subpath}.d.ts`);
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

describe('the entry points of the packed package', () => {
  it('gives each subpath its names to plain ESM JavaScript, and nothing internal', () => {
    writeFileSync(
      join(consumer, 'entries.mjs'),
      `const entries = ${JSON.stringify(entryNames)};
const internals = ${JSON.stringify(internals)};
const missing = {};
const exposed = {};
for (const [subpath, names] of Object.entries(entries)) {
  const entry = await import('${packageName}' + subpath);
  missing[subpath] = names.filter((name) => entry[name] === undefined);
  exposed[subpath] = internals.filter((name) => name in entry);
}
let deep = 'imported';
try {
  await import('${packageName}/dist/src/loop/run-batch.js');
} catch (error) {
  deep = error.code;
}
console.log(JSON.stringify({ missing, exposed, deep }));
`,
    );
    const run = spawnOutput(process.execPath, ['entries.mjs']);
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(run.output.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    const none = Object.fromEntries(Object.keys(entryNames).map((subpath) => [subpath, []]));
    expect(report).toEqual({ missing: none, exposed: none, deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
  });

  it('type-checks a strict NodeNext consumer that uses every subpath, and refuses a deep import', () => {
    writeFileSync(join(consumer, 'tsconfig.entries.json'), JSON.stringify(entriesTsconfig, null, 2));
    writeFileSync(join(consumer, 'entries.ts'), entriesProgram);
    writeFileSync(
      join(consumer, 'deep.ts'),
      `import { runBatch } from '${packageName}/dist/src/loop/run-batch.js';\nvoid runBatch;\n`,
    );
    const tsc = join(checkout, 'node_modules/typescript/bin/tsc');
    const compile = spawnOutput(process.execPath, [tsc, '-p', 'tsconfig.entries.json']);
    expect(compile.output).toBe('');
    expect(compile.code).toBe(0);
    // The exports map has no ./dist/*: the compiler refuses the deep import as Node does.
    const alone = spawnOutput(process.execPath, [
      tsc,
      '--noEmit',
      '--strict',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--types',
      'node',
      'deep.ts',
    ]);
    expect(alone.code).not.toBe(0);
    expect(alone.output).toContain("Cannot find module '" + packageName + "/dist/src/loop/run-batch.js'");
  }, 120_000);

  it('declares what its code needs at run time: zod for the shipped shop example, which the demo loads', () => {
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', packed.name, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      sideEffects: unknown;
    };
    // The library's entries reach no schema library (test/architecture); the shop example is written in zod.
    expect(Object.keys(manifest.dependencies)).toContain('zod');
    expect(manifest.sideEffects).toBe(false);
  });

  it('runs the shop demo and the default evaluation suite from the installed binary', () => {
    const arbiter = join(consumer, 'node_modules/.bin/arbiter');
    const demo = spawnOutput(arbiter, ['demo', '--events', 'none', '--data-dir', join(directory, 'demo')]);
    expect(demo.code, demo.output).toBe(0);
    expect(demo.output).toContain('calls query_order {"order_id":"SO20260901"}');
    expect(demo.output).toContain('[awaiting_approval]');
    const evaluation = spawnOutput(arbiter, ['eval', '--json']);
    expect(evaluation.code, evaluation.output).toBe(0);
    expect(JSON.parse(evaluation.output.trim())).toMatchObject({ suite: 'shop', failed: 0 });
  }, 120_000);
});

/** The schema libraries a newcomer's project brings itself: arbiter depends on none of them. */
const schemaLibraries = ['zod', 'valibot', '@valibot/to-json-schema', 'arktype'];
/**
 * A newcomer's tools, one per way of writing a schema, each with a misspelled
 * and a wrongly typed argument the compiler must refuse (an unused
 * `@ts-expect-error` fails the build), then run: each tool called once by the
 * scripted model, and a zod refinement refused at definition.
 */
const typedToolsProgram = `import { defineTool, runAgent, ToolDefinitionError, ToolRegistry } from '${packageName}';
import { type Script, ScriptedModel } from '${packageName}/testing';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';

const common = { sideEffect: 'read', description: 'Look up an order by number. Not for refunds.' } as const;
const orderSchema = {
  type: 'object',
  properties: { order_id: { type: 'string', pattern: '^SO\\\\d{8}$' }, lines: { type: 'integer', minimum: 1 } },
  required: ['order_id'],
  additionalProperties: false,
} as const;

const jsonTool = defineTool({
  ...common,
  name: 'json_order',
  parameters: orderSchema,
  execute: (args) => {
    // @ts-expect-error misspelled
    void args.orderId;
    // @ts-expect-error wrongly typed: lines is a number
    const lines: string | undefined = args.lines;
    return { via: 'json', order: args.order_id.toUpperCase(), lines };
  },
});
const zodTool = defineTool({
  ...common,
  name: 'zod_order',
  parameters: z.object({ order_id: z.string().regex(/^SO\\d{8}$/), lines: z.int().min(1).optional() }),
  boundParameters: { tenant_id: 'tenantId' },
  dataScope: 'tenant',
  execute: (args) => {
    // @ts-expect-error misspelled
    void args.orderId;
    // @ts-expect-error bound parameters are absent without a principal
    const tenant: string = args.tenant_id;
    return { via: 'zod', order: args.order_id.toUpperCase(), tenant };
  },
});
const valibotTool = defineTool({
  ...common,
  name: 'valibot_order',
  parameters: toStandardJsonSchema(v.object({ order_id: v.pipe(v.string(), v.regex(/^SO\\d{8}$/)) })),
  execute: (args) => {
    // @ts-expect-error misspelled
    void args.orderId;
    // @ts-expect-error wrongly typed: order_id is a string
    const order: number = args.order_id;
    return { via: 'valibot', order };
  },
});
const arkTool = defineTool({
  ...common,
  name: 'arktype_order',
  parameters: type({ order_id: /^SO\\d{8}$/, 'lines?': 'number.integer >= 1' }),
  execute: (args) => {
    // @ts-expect-error misspelled
    void args.orderId;
    // @ts-expect-error wrongly typed: lines is a number
    const lines: boolean | undefined = args.lines;
    return { via: 'arktype', order: args.order_id, lines };
  },
});
let refused = '';
try {
  defineTool({ ...common, name: 'refined', parameters: z.object({ order_id: z.string().refine((id) => id.length > 2) }), execute: () => null });
} catch (error) {
  if (ToolDefinitionError.isInstance(error)) refused = \`\${error.toolName} \${error.field}\`;
}

const names = ['json_order', 'zod_order', 'valibot_order', 'arktype_order'];
const script: Script = {
  name: 'typed',
  turns: [{ steps: [...names.map((name) => ({ call: { name, arguments: { order_id: 'SO20260901' } } })), { say: 'done' }] }],
};
const registry = new ToolRegistry().register(jsonTool).register(zodTool).register(valibotTool).register(arkTool);
const result = await runAgent({
  model: new ScriptedModel({ script }),
  tools: registry,
  messages: [{ role: 'user', content: 'Where is SO20260901?' }],
  principal: { tenantId: 'acme', userId: 'C1', roles: [] },
});
const outputs = result.messages.filter((message) => message.role === 'tool').map((message) => JSON.parse(String(message.content)));
console.log(JSON.stringify({ stopReason: result.stopReason, outputs, refused, specs: registry.specs.map((spec) => spec.function.parameters) }));
`;

describe("a newcomer's typed tools, compiled from the packed package", () => {
  let newcomer: string;
  beforeAll(() => {
    newcomer = join(directory, 'newcomer');
    installTarball({
      tarball: packed.tarball,
      name: packed.name,
      consumer: newcomer,
      checkout,
      devDependencies: ['@types/node', ...schemaLibraries],
    });
  }, 120_000);

  it('refuses misspelled and wrongly typed arguments under tsc strict NodeNext, and runs each tool', () => {
    writeFileSync(
      join(newcomer, 'tsconfig.json'),
      JSON.stringify(
        {
          ...entriesTsconfig,
          files: ['typed-tools.ts'],
          compilerOptions: { ...entriesTsconfig.compilerOptions, noEmit: false, outDir: 'dist' },
        },
        null,
        2,
      ),
    );
    writeFileSync(join(newcomer, 'typed-tools.ts'), typedToolsProgram);
    const tsc = join(checkout, 'node_modules/typescript/bin/tsc');
    const compile = spawnOutput(process.execPath, [tsc, '-p', '.'], newcomer);
    expect(compile.output).toBe('');
    expect(compile.code).toBe(0);
    // Without the directives each line they mark is an error: the compiler does refuse them.
    writeFileSync(join(newcomer, 'typed-tools.ts'), typedToolsProgram.replaceAll('// @ts-expect-error', '//'));
    const unmarked = spawnOutput(process.execPath, [tsc, '-p', '.', '--noEmit'], newcomer);
    expect(unmarked.output.match(/error TS\d+/g)?.length).toBe(8);
    writeFileSync(join(newcomer, 'typed-tools.ts'), typedToolsProgram);

    const run = spawnOutput(process.execPath, ['dist/typed-tools.js'], newcomer);
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(run.output.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(report).toMatchObject({
      stopReason: 'completed',
      refused: 'refined order_id',
      outputs: [
        { via: 'json', order: 'SO20260901' },
        { via: 'zod', order: 'SO20260901', tenant: 'acme' },
        { via: 'valibot', order: 'SO20260901' },
        { via: 'arktype', order: 'SO20260901' },
      ],
    });
    const orderId = { type: 'string', pattern: '^SO\\d{8}$' };
    expect(report['specs']).toEqual([
      {
        type: 'object',
        properties: { order_id: orderId, lines: { type: 'integer', minimum: 1 } },
        required: ['order_id'],
        additionalProperties: false,
      },
      {
        type: 'object',
        // zod's implicit safe-integer bound is left out: nobody wrote it (what the model reads names what was written).
        properties: { order_id: orderId, lines: { type: 'integer', minimum: 1 } },
        required: ['order_id'],
      },
      { type: 'object', properties: { order_id: orderId }, required: ['order_id'] },
      {
        type: 'object',
        properties: { order_id: orderId, lines: { type: 'integer', minimum: 1 } },
        required: ['order_id'],
      },
    ]);
  }, 180_000);
});

function spawnOutput(
  command: string,
  args: readonly string[],
  cwd: string = consumer,
): { code: number; output: string } {
  try {
    const output = execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, output };
  } catch (error) {
    const { status, stdout = '', stderr = '' } = error as { status?: number | null; stdout?: string; stderr?: string };
    return { code: status ?? 1, output: `${stdout}${stderr}` };
  }
}
