import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeSnippets } from './package/readme-snippets.js';

const section = readmeSnippets({ file: 'docs/routing.md' }).filter((snippet) => snippet.section === 'Many tools');

describe('docs/routing.md "Many tools"', () => {
  it('runs as pasted (the package imports pointed at this checkout) and prints what the README shows', () => {
    const program = section.find((snippet) => snippet.language === 'ts');
    const shown = section.find((snippet) => snippet.language === '');
    if (program === undefined || shown === undefined) throw new Error('"Many tools" needs a ts block and its output');
    const code = program.code
      .replace("'@arbiter-runtime/core/testing'", JSON.stringify(resolve('src/testing.ts')))
      .replace("'@arbiter-runtime/core/evaluation'", JSON.stringify(resolve('src/evaluation.ts')))
      .replace("'@arbiter-runtime/core'", JSON.stringify(resolve('src/index.ts')));
    expect(code).not.toContain('@arbiter-runtime/core');
    const file = join(mkdtempSync(join(tmpdir(), 'arbiter-readme-')), 'many-tools.mts');
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(shown.code);
  }, 60_000);

  it('shows an arbiter route command that works on the routing set', () => {
    const command = section.find((snippet) => snippet.language === 'sh')?.code.trim() ?? '';
    const args = command.replace('npm run arbiter -- ', '').split(' ');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8' });
    // Exit 1: a few requests of the set share no word with any tool (docs/routing.md lists them).
    expect(run.status).toBe(1);
    expect(run.stdout.trim().split('\n')).toHaveLength(120);
  }, 60_000);
});
