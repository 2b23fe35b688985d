/**
 * docs/gate.md "Approve and continue in code": the whole flow (run, list,
 * decide, resume) as printed, run against this checkout, printing what the
 * page says it prints (the comment lines that end the block).
 * scripts/readme-smoke.sh compiles and runs the same block from the packed tarball.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeSnippets } from './package/readme-snippets.js';

// Inside the checkout, so the program's own import of zod resolves from the checkout's node_modules.
const directory = mkdtempSync(resolve('.readme-approve-in-code-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('docs/gate.md "Approve and continue in code"', () => {
  it('runs as pasted (the package imports pointed at this checkout) and prints what the page shows', () => {
    const [program, ...others] = readmeSnippets({ file: 'docs/gate.md' }).filter(
      (snippet) => snippet.section === 'Approve and continue in code' && snippet.language === 'ts',
    );
    if (program === undefined || others.length > 0) throw new Error('the section must hold one TypeScript program');
    expect(program.fileName).toBe('approve-in-code.ts');
    const lines = program.code.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(36);
    const shown = lines.slice(lines.findLastIndex((line) => !line.startsWith('// ')) + 1).map((line) => line.slice(3));
    expect(shown).toHaveLength(2);
    const code = program.code
      .replace("'@arbiter-runtime/core/sqlite'", JSON.stringify(resolve('src/sqlite.ts')))
      .replace("'@arbiter-runtime/core/testing'", JSON.stringify(resolve('src/testing.ts')))
      .replace("'@arbiter-runtime/core'", JSON.stringify(resolve('src/index.ts')));
    expect(code).not.toContain('@arbiter-runtime/core');
    const file = join(directory, 'approve-in-code.mts');
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual(shown);
  }, 60_000);
});
