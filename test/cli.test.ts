import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs the real `arbiter` entry point in a child process, as a user would. */
function arbiter(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const shopTools = 'examples/shop/shop-tools.openai.json';

describe('arbiter command line', () => {
  it('runs the demo offline and the model recovers', () => {
    const { code, stdout } = arbiter('demo', '--data-dir', mkdtempSync(join(tmpdir(), 'arbiter-cli-')));
    expect(code).toBe(0);
    expect(stdout).toContain('rejected before execution');
    expect(stdout).toContain('calls query_order {"order_id":"SO20260901"}');
    expect(stdout).toMatch(/\[completed\]/);
  });

  it('runs the demo with vague errors and the run ends in a hand-off', () => {
    const { code, stdout } = arbiter(
      'demo',
      '--vague-errors',
      '--data-dir',
      mkdtempSync(join(tmpdir(), 'arbiter-cli-')),
    );
    expect(code).toBe(0);
    expect(stdout).toContain('Tool execution failed');
    expect(stdout).not.toContain('SO20260901"}');
    expect(stdout).toMatch(/\[tool_failures\]/);
  });

  it('exits 0, 1 and 2 from validate for valid, invalid and unreadable input', () => {
    expect(
      arbiter(
        'validate',
        '--tools',
        'test/fixtures/real-world-tools.json',
        '--calls',
        'test/fixtures/real-world-calls.jsonl',
      ).code,
    ).toBe(0);
    const invalid = arbiter('validate', '--tools', shopTools, '--calls', 'test/fixtures/shop-calls.jsonl');
    expect(invalid.code).toBe(1);
    expect(
      invalid.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).not.toHaveLength(0);
    const unreadable = arbiter(
      'validate',
      '--tools',
      'test/fixtures/no-such-file.json',
      '--calls',
      'test/fixtures/shop-calls.jsonl',
    );
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('no-such-file.json');
  });

  it('exits 0, 1 and 2 from lint for clean, flawed and malformed tools', () => {
    expect(arbiter('lint', '--tools', shopTools).code).toBe(0);
    expect(arbiter('lint', '--tools', 'test/fixtures/missing-descriptions-tools.json').code).toBe(1);
    expect(arbiter('lint', '--tools', 'test/fixtures/malformed-tools.txt').code).toBe(2);
  });

  it('refuses an unknown command or flag with exit 2 and the usage', () => {
    const unknown = arbiter('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(arbiter('demo', '--lang', 'fr').code).toBe(2);
  });
});
