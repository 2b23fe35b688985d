/**
 * `arbiter serve` refuses what it cannot use before it listens, and says all
 * of it: a tool definition's whole error (fields and fix), a script step
 * with a misspelt field, an auth file's JSON error with its line and
 * column, and how to run a TypeScript tools module. The real CLI, in its
 * own process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'arbiter-serve-checks-'));

/** The CLI from source (tsx loads TypeScript), or from `dist/` under plain Node, as a user runs it. */
function arbiter(args: readonly string[], { built = false, environment = {} as Record<string, string> } = {}) {
  const command = built ? ['dist/src/cli/main.js'] : ['--import', 'tsx', 'src/cli/main.ts'];
  const result = spawnSync(
    process.execPath,
    [...command, 'serve', '--port', '0', '--data-dir', join(scratch, 'data'), ...args],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...environment }, timeout: 60_000 },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('arbiter serve checks what it is given before it listens', () => {
  it.each([
    ['defined at import', 'test/fixtures/refined-tools/defined-at-import.ts'],
    ['defined in createTools', 'test/fixtures/refined-tools/defined-in-create-tools.ts'],
  ])('prints a tool definition error whole, fields and fix, for a tool %s', (_name, module) => {
    const result = arbiter(['--tools', module]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^arbiter: /);
    expect(result.stderr).toContain('tool "query_order": its zod parameters say what JSON Schema cannot');
    expect(result.stderr).toContain('- field "order_id": a refinement (refine, superRefine or check)');
    expect(result.stderr).toContain('Say it with JSON Schema keywords (pattern, minimum, maxLength, enum, …)');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('says a package the tools module imports is missing, not that the module is', () => {
    const result = arbiter(['--tools', 'test/fixtures/refined-tools/imports-a-missing-package.ts']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Cannot find package 'arbiter-test-package-that-is-not-installed'");
    expect(result.stderr).not.toContain('there is no file');
  });

  it('refuses a script step with "args" for "arguments" at start, naming the step and the field', () => {
    const script = file(
      'script.json',
      JSON.stringify({
        name: 'misspelt',
        turns: [
          { steps: [{ say: 'Let me look.' }] },
          { steps: [{ say: 'One moment.' }, { call: { name: 'query_order', args: { order_id: 'SO20260901' } } }] },
        ],
      }),
    );
    const result = arbiter(['--script', script]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `arbiter: ${script}: turn 2, step 2 (turns[1].steps[1].call): unknown field "args" (did you mean "arguments"?); a call is {"name", "arguments"}\n`,
    });
  });

  it('refuses a script step that is neither a call nor a sentence', () => {
    const script = file('say.json', JSON.stringify({ name: 's', turns: [{ steps: [{ text: 'Hello' }] }] }));
    expect(arbiter(['--script', script]).stderr).toBe(
      `arbiter: ${script}: turn 1, step 1 (turns[0].steps[0]): unknown field "text" (did you mean "say"?); a step is {"call": {"name", "arguments"}} or {"say": "…"}\n`,
    );
  });

  it('names the line and column of a trailing comma in an --auth file, and none of its tokens', () => {
    const token = 'serve-checks-secret-token-0123456789abcdef';
    const auth = file(
      'auth.json',
      `{\n  "tokens": [\n    { "token": "${token}", "tenantId": "shop", "userId": "S9001", "roles": ["approver"] },\n  ]\n}\n`,
    );
    const result = arbiter(['--auth', auth]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `arbiter: ${auth}:4:3: not valid JSON: unexpected "]" (a trailing comma before it?)\n`,
    });
  });

  it('says how to run a TypeScript tools module under plain Node, and the way it says works', () => {
    if (!existsSync('dist/src/cli/main.js')) throw new Error('run `npm run build` first: this test starts dist/');
    const module = 'test/fixtures/refined-tools/defined-at-import.ts';
    const plain = arbiter(['--tools', module], { built: true });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(`tools module ${module} cannot be loaded: Node runs JavaScript`);
    expect(plain.stderr).toContain(
      'Compile it first (tsc, then --tools test/fixtures/refined-tools/defined-at-import.js)',
    );
    expect(plain.stderr).toContain(`NODE_OPTIONS="--import tsx" npx arbiter serve --tools ${module}`);
    expect(plain.stderr).not.toContain('Unknown file extension');
    // Under the loader it names, the module is read: what stops it now is the tool's own definition error.
    const loaded = arbiter(['--tools', resolve(module)], {
      built: true,
      environment: { NODE_OPTIONS: '--import tsx' },
    });
    expect(loaded.code).toBe(2);
    expect(loaded.stderr).toContain('- field "order_id": a refinement');
  });
});
