import { readFileSync } from 'node:fs';
import { InputFileError } from '../errors/input-file-error.js';
import type { SuiteReport } from './run-suite.js';

/** A suite's results frozen as the reference: per case, whether it passed. */
export interface Baseline {
  readonly suite: string;
  readonly cases: Readonly<Record<string, BaselineCase>>;
}

export interface BaselineCase {
  readonly passed: boolean;
  readonly category: string;
  readonly stopReason: string;
}

/** What changed between a baseline and a new report, case by case. */
export interface BaselineComparison {
  /** Passed in the baseline, fail now, with why. */
  readonly regressions: readonly { readonly id: string; readonly failures: readonly string[] }[];
  /** Failed in the baseline, pass now. */
  readonly fixes: readonly string[];
  /** Failed in both. */
  readonly stillFailing: readonly string[];
  /** Not in the baseline. */
  readonly added: readonly string[];
  /** In the baseline, not run now; a missing case that used to pass counts as a regression too. */
  readonly missing: readonly string[];
}

/**
 * The baseline of a report. It holds no timings or token counts, so it
 * changes only when a case's verdict or stop reason does.
 *
 * @example
 * writeFileSync('evals/shop/baseline.json', `${JSON.stringify(toBaseline(report), null, 2)}\n`);
 */
export function toBaseline(report: SuiteReport): Baseline {
  return {
    suite: report.suite,
    cases: Object.fromEntries(
      report.cases.map((result) => [
        result.id,
        { passed: result.passed, category: result.category, stopReason: result.stopReason },
      ]),
    ),
  };
}

/**
 * Compares a report with a baseline case by case: a suite whose pass count
 * did not move can still hide one case that broke and another that was
 * fixed.
 *
 * @example
 * const { regressions } = compareWithBaseline({ report, baseline: readBaseline('evals/shop/baseline.json') });
 * process.exitCode = regressions.length > 0 ? 1 : 0;
 */
export function compareWithBaseline({
  report,
  baseline,
}: {
  report: SuiteReport;
  baseline: Baseline;
}): BaselineComparison {
  const regressions: { id: string; failures: readonly string[] }[] = [];
  const fixes: string[] = [];
  const stillFailing: string[] = [];
  const added: string[] = [];
  for (const result of report.cases) {
    const before = baseline.cases[result.id];
    if (before === undefined) added.push(result.id);
    else if (before.passed && !result.passed) regressions.push({ id: result.id, failures: result.failures });
    else if (!before.passed && result.passed) fixes.push(result.id);
    else if (!before.passed && !result.passed) stillFailing.push(result.id);
  }
  const run = new Set(report.cases.map((result) => result.id));
  const missing = Object.keys(baseline.cases).filter((id) => !run.has(id));
  for (const id of missing) {
    if (baseline.cases[id]?.passed === true) regressions.push({ id, failures: ['the case is no longer in the suite'] });
  }
  return { regressions, fixes, stillFailing, added, missing };
}

/**
 * Reads a baseline file. Throws `InputFileError` naming the file.
 *
 * @example
 * const baseline = readBaseline('evals/shop/baseline.json');
 */
export function readBaseline(path: string): Baseline {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputFileError({ file: path, problem: `not a readable JSON baseline`, cause: error });
  }
  const cases = (value as { cases?: unknown } | null)?.cases;
  if (typeof cases !== 'object' || cases === null || Array.isArray(cases)) {
    throw new InputFileError({
      file: path,
      problem: `expected {"suite": …, "cases": {"<case id>": {"passed": true, …}}}`,
    });
  }
  for (const [id, entry] of Object.entries(cases)) {
    if (typeof (entry as { passed?: unknown } | null)?.passed !== 'boolean') {
      throw new InputFileError({ file: path, problem: `case "${id}" has no boolean "passed"` });
    }
  }
  return value as Baseline;
}
