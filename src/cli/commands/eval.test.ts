import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExperimentReport } from '../../evaluation/error-message-experiment.js';
import type { CommandResult } from '../cli-output.js';
import { evalCommand, evalFromArgs } from './eval.js';

const suite = 'evals/shop';
const baseline = 'evals/shop/baseline.json';

function temporaryCopy(): string {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-eval-'));
  cpSync(suite, directory, { recursive: true });
  return directory;
}

/** The Markdown tables of a command's output, each as one block of lines. */
function tablesOf(lines: readonly string[]): string[] {
  const tables: string[] = [];
  let current: string[] = [];
  for (const line of [...lines, '']) {
    if (line.startsWith('|')) current.push(line);
    else if (current.length > 0) {
      tables.push(current.join('\n'));
      current = [];
    }
  }
  return tables;
}

describe('arbiter eval', () => {
  let run: CommandResult;
  beforeAll(async () => {
    run = await evalCommand({ suite, baseline });
  }, 120_000);

  it('passes every case of the built-in shop suite, with no regression against the saved baseline', () => {
    expect(run.stderr).toEqual([]);
    expect(run.stdout).toContain('summary: 26 cases, 26 passed, 0 failed');
    expect(run.stdout).toContain(`against baseline ${baseline}: 0 regressions (pass → fail), 0 fixes (fail → pass)`);
    expect(run.exitCode).toBe(0);
  });

  it('covers the failure paths and the adversarial set, one case each at least', () => {
    const [caseTable = ''] = tablesOf(run.stdout);
    for (const category of [
      'single-tool',
      'multi-tool',
      'missing-parameter',
      'tool-error',
      'unauthorized',
      'no-answer',
      'adversarial: enum injection',
      'adversarial: unit trap',
      'adversarial: hallucinated id',
      'adversarial: retry storm',
      'adversarial: prompt injection',
    ]) {
      expect(caseTable).toMatch(new RegExp(`\\| ${category} +\\| pass `));
    }
  });

  it('matches the table in docs/evaluation.md (regenerate it with `arbiter eval` when a case changes)', () => {
    const docs = readFileSync('docs/evaluation.md', 'utf8');
    const [caseTable = ''] = tablesOf(run.stdout);
    expect(docs).toContain(caseTable);
  });

  it('saves a baseline equal to the one checked in', async () => {
    const written = join(mkdtempSync(join(tmpdir(), 'arbiter-baseline-')), 'baseline.json');
    await evalCommand({ suite, writeBaseline: written });
    expect(readFileSync(written, 'utf8')).toBe(readFileSync(baseline, 'utf8'));
  });

  it('reports a case that went from pass to fail after a tool definition changed, and exits 1', async () => {
    const copy = temporaryCopy();
    const toolsFile = join(copy, 'tools.json');
    // A harmless-looking edit: the millisecond field loses its magnitude check.
    const tools = readFileSync(toolsFile, 'utf8').replace('"minimum": 1000000000000,', '');
    expect(tools).not.toContain('"minimum"');
    writeFileSync(toolsFile, tools);
    const result = await evalCommand({ suite: copy, baseline });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(`against baseline ${baseline}: 1 regression (pass → fail), 0 fixes (fail → pass)`);
    const regression = result.stdout.find((line) => line.startsWith('  regression '));
    expect(regression).toMatchInlineSnapshot(
      `"  regression unit-trap: calls: schedule_callback ran; errors: no failed call of schedule_callback with stage validation, code too_small, retryable, message containing ">= 1000000000000", message containing "milliseconds", message containing "You sent the number 1788656400"; answer: contains "booked""`,
    );
    expect(result.stdout.join('\n')).toMatch(/\| unit-trap +\| adversarial: unit trap +\| FAIL /);
  });

  it('reports a case that went from fail to pass, and a case the baseline does not know', async () => {
    const copy = temporaryCopy();
    const saved = JSON.parse(readFileSync(baseline, 'utf8')) as { cases: Record<string, { passed: boolean }> };
    const edited = join(copy, 'old-baseline.json');
    const noAnswer = saved.cases['no-answer'];
    if (noAnswer === undefined) throw new Error('the baseline has no no-answer case');
    noAnswer.passed = false;
    delete saved.cases['single-tool'];
    writeFileSync(edited, JSON.stringify(saved));
    const result = await evalCommand({ suite: copy, baseline: edited });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('  fixed no-answer');
    expect(result.stdout).toContain('  new case single-tool (not in the baseline)');
  });

  it('fails without a baseline when any case fails, and prints why', async () => {
    const copy = temporaryCopy();
    const caseFile = join(copy, 'cases', '09-no-answer.json');
    writeFileSync(caseFile, readFileSync(caseFile, 'utf8').replace('"don\'t know"', '"will arrive tomorrow"'));
    const result = await evalCommand({ suite: copy });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('summary: 26 cases, 25 passed, 1 failed');
    expect(result.stdout).toContain('    - answer: does not contain "will arrive tomorrow"');
  });

  it('prints a JSON report with --json', async () => {
    const result = await evalFromArgs(['--suite', suite, '--json']);
    const report = JSON.parse(result.stdout[0] ?? '') as {
      passed: number;
      cases: { id: string; passed: boolean; stopReason: string }[];
      metrics: { runs: number; gateDenials: number };
    };
    expect(report.passed).toBe(26);
    expect(report.cases.find((entry) => entry.id === 'retry-storm')?.stopReason).toBe('tool_failures');
    expect(report.metrics.gateDenials).toBe(5);
  });

  it('exits 2 on a suite, baseline or flag it cannot use', async () => {
    const missing = await evalCommand({ suite: join(tmpdir(), 'no-such-suite') });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr[0]).toMatch(/no-such-suite\/suite\.json: no suite here/);
    const copy = temporaryCopy();
    writeFileSync(join(copy, 'bad-baseline.json'), '[]');
    const badBaseline = await evalCommand({ suite: copy, baseline: join(copy, 'bad-baseline.json') });
    expect(badBaseline).toMatchObject({ exitCode: 2 });
    const suiteFile = join(copy, 'suite.json');
    writeFileSync(suiteFile, readFileSync(suiteFile, 'utf8').replace('"toolkit": "shop"', '"toolkit": "bank"'));
    const unknownToolkit = await evalCommand({ suite: copy });
    expect(unknownToolkit.stderr[0]).toMatch(/toolkit "bank" is not available here \(available: shop\)/);
    expect((await evalFromArgs(['--experiment', 'tone'])).stderr).toEqual([
      '--experiment must be one of error-messages, routing, got "tone"',
    ]);
    vi.stubEnv('ARBITER_BASE_URL', '');
    try {
      const noEndpoint = await evalCommand({ suite, model: 'configured' });
      expect(noEndpoint.exitCode).toBe(2);
      expect(noEndpoint.stderr[0]).toContain('ARBITER_BASE_URL');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('arbiter eval --experiment error-messages', () => {
  let result: CommandResult;
  let report: ExperimentReport;
  beforeAll(async () => {
    result = await evalCommand({ suite, experiment: 'error-messages' });
    report = JSON.parse((await evalCommand({ suite, experiment: 'error-messages', json: true })).stdout[0] ?? '');
    // Two runs of the whole corpus: on a loaded 2-core machine this takes longer than the default hook timeout.
  }, 180_000);

  it('feeds at least 30 varied broken calls to the scripted model under each error style', () => {
    expect(result.exitCode).toBe(0);
    const full = report.rows.filter((row) => row.style === 'full');
    expect(full.length).toBeGreaterThanOrEqual(30);
    expect(new Set(full.map((row) => row.kind)).size).toBeGreaterThanOrEqual(7);
    expect(report.rows.filter((row) => row.outcome === 'not_broken')).toEqual([]);
  });

  it('corrects strictly more calls with arbiter’s full message than with "Tool execution failed"', () => {
    const corrected = (style: string) =>
      report.rows.filter((row) => row.style === style && row.outcome.startsWith('corrected')).length;
    const right = (style: string) => report.rows.filter((row) => row.style === style && row.right).length;
    expect(corrected('full')).toBeGreaterThan(corrected('vague'));
    expect(right('full')).toBeGreaterThan(right('vague'));
    expect(right('full')).toBeGreaterThanOrEqual(right('field_only'));
  });

  it('matches the tables in docs/evaluation.md (regenerate them with the command when the corpus changes)', () => {
    const docs = readFileSync('docs/evaluation.md', 'utf8');
    for (const table of tablesOf(result.stdout)) expect(docs).toContain(table);
  });
});
