/**
 * The first hour at the command line: every command and subcommand answers
 * `--help` (exit 0, its usage on stdout), `--version` prints the package's
 * version, and every error a person can cause is one `arbiter: ` line on
 * stderr, without a stack, with a non-zero exit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandUsages } from '../src/cli/command-usage.js';

function arbiter(args: readonly string[], environment: Record<string, string | undefined> = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...environment },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-cli-help-'));

/** Every command of `arbiter help`, and the subcommands a person types. */
const invocations = [
  ...Object.keys(commandUsages).map((command) => [command]),
  ['audit', 'purge'],
  ['events', 'prune'],
  ['sessions', 'list'],
  ['sessions', 'show'],
  ['sessions', 'fork'],
  ['memory', 'list'],
  ['memory', 'show'],
  ['memory', 'forget'],
  ['memory', 'export'],
  ['memory', 'purge'],
  ['mcp', 'tools'],
  ['mcp', 'serve'],
];

describe('arbiter --help and --version', () => {
  it('knows every command main.ts dispatches', () => {
    const main = readFileSync('src/cli/main.ts', 'utf8');
    const dispatched = [...main.matchAll(/^ {2}'?([a-z-]+)'?: (?:async|run)/gm)].map((match) => match[1]);
    expect(dispatched.length).toBeGreaterThan(10);
    expect(Object.keys(commandUsages).sort()).toEqual([...new Set(dispatched)].sort());
  });

  it.each(invocations.map((words) => [words.join(' '), words] as const))(
    'prints the usage of arbiter %s for --help and -h, exit 0',
    (_name, words) => {
      for (const flag of ['--help', '-h']) {
        const { code, stdout, stderr } = arbiter([...words, flag]);
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
        expect(stdout).toMatch(/^Usage:\n/);
        expect(stdout).toContain(`arbiter ${words.join(' ')}`);
      }
    },
    120_000,
  );

  it('leaves --help after -- to the MCP server command', () => {
    const { stdout } = arbiter(['mcp', 'tools', '--', join(scratch, 'no-such-server'), '--help']);
    expect(stdout).not.toMatch(/^Usage:/);
  });

  it('prints the package version for --version and -V', () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(arbiter(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(arbiter(['-V'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('lists every command in arbiter help', () => {
    const { code, stdout } = arbiter(['help']);
    expect(code).toBe(0);
    for (const command of Object.keys(commandUsages)) expect(stdout).toContain(`arbiter ${command}`);
    expect(stdout).toContain('--version');
  });
});

/** One `arbiter: ` line, no stack, no doubled prefix. */
function expectOneLine(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  expect(result.stderr).toMatch(/^arbiter: [^\n]+\n$/);
  expect(result.stderr).not.toContain('arbiter: arbiter');
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).toMatch(pattern);
}

describe('errors a person can cause', () => {
  let busy: Server;
  let busyPort = 0;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const address = busy.address();
    busyPort = typeof address === 'object' && address !== null ? address.port : 0;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('serve on a port in use: one line naming the address', () => {
    expectOneLine(
      arbiter(['serve', '--port', String(busyPort), '--data-dir', join(scratch, 'busy')]),
      new RegExp(`address already in use 127\\.0\\.0\\.1:${busyPort}.*--port`),
    );
  });

  it('demo --data-dir on an existing file: one line', () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    expectOneLine(arbiter(['demo', '--events', 'none', '--data-dir', file]), /EEXIST.*--data-dir must be a directory/);
  });

  it('serve --tools ./nope.js: says why it cannot be loaded', () => {
    expectOneLine(
      arbiter(['serve', '--port', '0', '--tools', './nope.js', '--data-dir', join(scratch, 'nope')]),
      /tools module \.\/nope\.js cannot be loaded: there is no file .*nope\.js/,
    );
  });

  it('an unknown option: one line pointing at the command help', () => {
    expectOneLine(arbiter(['demo', '--bogus']), /Unknown option '--bogus' \(see arbiter demo --help\)/);
    expectOneLine(arbiter(['route', '--nope']), /Unknown option '--nope'/);
  });

  it('serve --model openai without the environment variables: one line naming them', () => {
    expectOneLine(
      arbiter(['serve', '--model', 'openai', '--port', '0', '--data-dir', join(scratch, 'model')], {
        ARBITER_BASE_URL: undefined,
        ARBITER_API_KEY: undefined,
        ARBITER_MODEL: undefined,
        OPENAI_API_KEY: undefined,
        OPENAI_BASE_URL: undefined,
      }),
      /ARBITER_BASE_URL.*ARBITER_API_KEY.*ARBITER_MODEL/,
    );
  });

  it('serve and eval --model configured naming an AI SDK provider that is not installed: one line saying what to install', () => {
    const environment = { ARBITER_PROVIDER: '@ai-sdk/not-installed-here', ARBITER_MODEL: 'some-model' };
    for (const args of [
      ['serve', '--model', 'configured', '--port', '0', '--data-dir', join(scratch, 'provider')],
      ['eval', '--model', 'configured'],
    ]) {
      expectOneLine(
        arbiter(args, environment),
        /ARBITER_PROVIDER names @ai-sdk\/not-installed-here, which is not installed: npm install @ai-sdk\/not-installed-here$/m,
      );
    }
    expectOneLine(
      arbiter(['serve', '--model', 'configured', '--port', '0', '--data-dir', join(scratch, 'provider')], {
        ARBITER_PROVIDER: './my-provider.js',
        ARBITER_MODEL: 'some-model',
      }),
      /ARBITER_PROVIDER must be anthropic, google or the name of an installed AI SDK provider/,
    );
  });

  it('memory list and show: 2 without a store, as every operational command; 0 and 1 "no such fact" with one', () => {
    const data = join(scratch, 'memory');
    const listed = arbiter(['memory', 'list', '--user', 'C1001', '--data-dir', data]);
    expect(listed).toEqual({
      code: 2,
      stdout: '',
      stderr: `arbiter: no arbiter store at ${join(data, 'arbiter.db')}\n`,
    });
    arbiter(['demo', '--events', 'none', '--data-dir', data]);
    expect(arbiter(['memory', 'forget', '--all', '--user', 'C1001', '--data-dir', data]).code).toBe(0);
    const after = arbiter(['memory', 'list', '--user', 'C1001', '--data-dir', data]);
    expect(after).toEqual({ code: 0, stdout: 'no facts remembered about C1001\n', stderr: '' });
    expectOneLine(arbiter(['memory', 'show', 'nope', '--user', 'C1001', '--data-dir', data]), /no such fact nope/);
    expect(arbiter(['memory', 'show', 'nope', '--user', 'C1001', '--data-dir', data]).code).toBe(1);
  });

  it.each([
    [
      'validate, a tools file that is not there',
      ['validate', '--tools', 'nope.json', '--calls', 'x'],
      /nope\.json: cannot read/,
    ],
    ['lint, a tools file that is not there', ['lint', '--tools', 'nope.json'], /nope\.json: cannot read/],
    ['approvals, no store', ['approvals', '--data-dir', 'no-store'], /no arbiter store at/],
    ['audit, no store', ['audit', '--data-dir', 'no-store'], /no arbiter store at/],
    ['eval, a suite that is not there', ['eval', '--suite', 'nope'], /nope\/suite\.json: no suite here/],
    ['stats, nothing recorded', ['stats', '--data-dir', 'no-store'], /no runs recorded/],
    ['mcp tools without a server', ['mcp', 'tools'], /^arbiter: mcp tools needs either/],
  ])('%s: one line with the arbiter: prefix, once', (_name, args, pattern) => {
    expectOneLine(arbiter(args.map((arg) => (arg === 'no-store' ? join(scratch, 'no-store') : arg))), pattern);
  });

  it('route: exit 1 says which requests matched no tool', () => {
    const queries = join(scratch, 'queries.jsonl');
    writeFileSync(queries, '{"id":"q1","query":"where is my order SO20260901"}\n{"id":"hi","query":"xyzzy plugh"}\n');
    const result = arbiter([
      'route',
      '--tools',
      'examples/shop/shop-tools.openai.json',
      '--queries',
      queries,
      '--top',
      '2',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
    expectOneLine(result, /^arbiter: 1 of 2 requests matched no tool \(hi\)/);
  });

  it('mcp tools: exit 1 says why, and the $schema note comes once for the server', () => {
    const result = arbiter([
      'mcp',
      'tools',
      '--name',
      'files',
      '--',
      'node_modules/.bin/mcp-server-filesystem',
      scratch,
    ]);
    expectOneLine(result, /^arbiter: exit 1: \d+ of \d+ tools have lint warnings/);
    expect(result.code).toBe(1);
    expect(result.stdout.match(/"\$schema"/g)).toHaveLength(1);
  });

  it('serve --model openai on an endpoint fetch cannot reach: the cause, not "fetch failed"', () => {
    const result = arbiter(['serve', '--model', 'openai', '--port', '0', '--data-dir', join(scratch, 'bad-port')], {
      ARBITER_BASE_URL: 'http://127.0.0.1:9/v1',
      ARBITER_API_KEY: 'none',
      ARBITER_MODEL: 'gpt-4o',
    });
    expectOneLine(result, /is unreachable \(bad port\); check ARBITER_BASE_URL/);
    expect(result.stderr).not.toContain('fetch failed');
  });

  it('the demo outside the checkout prints the installed form of "decide later" (npx arbiter …)', () => {
    const run = spawnSync(
      process.execPath,
      // The built CLI (npm run build), as a project runs the installed one: tsx resolves from the checkout only.
      [join(process.cwd(), 'dist/src/cli/main.js'), 'demo', '--events', 'none', '--data-dir', 'data'],
      { encoding: 'utf8', cwd: mkdtempSync(join(tmpdir(), 'arbiter-project-')), timeout: 60_000 },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/decide later: npx arbiter approve ap_[0-9a-f]+ --data-dir data /);
    expect(run.stdout).toMatch(/to take it back: npx arbiter undo /);
    expect(run.stdout).not.toContain('npm run arbiter');
  });

  it('fake-endpoint: a bad port, a port in use and a missing script are one line each', () => {
    expectOneLine(arbiter(['fake-endpoint', '--port', 'none']), /--port must be an integer from 0 to 65535/);
    expectOneLine(
      arbiter(['fake-endpoint', '--port', String(busyPort)]),
      new RegExp(`address already in use 127\\.0\\.0\\.1:${busyPort}.*--port`),
    );
    expectOneLine(
      arbiter(['fake-endpoint', '--port', '0', '--script', join(scratch, 'no-script.json')]),
      /no-script\.json: cannot be read/,
    );
  });
});
