import { join } from 'node:path';
import { InputFileError } from '../errors/input-file-error.js';
import type { Model } from '../models/model.js';
import { type AgentMetrics, computeMetrics } from '../observe/compute-metrics.js';
import type { EvalToolkitFactory } from './eval-toolkit.js';
import type { EvalSuite } from './load-suite.js';
import { type CaseResult, runEvalCase } from './run-eval-case.js';

/** How a suite went: every case, and the metrics over all their runs. */
export interface SuiteReport {
  readonly suite: string;
  readonly cases: readonly CaseResult[];
  readonly passed: number;
  readonly failed: number;
  readonly metrics: AgentMetrics;
}

export interface RunSuiteOptions {
  readonly suite: EvalSuite;
  /** Toolkit factories by name; the suite's `toolkit` must be one of them. */
  readonly toolkits?: Readonly<Record<string, EvalToolkitFactory>>;
  /** Runs every case on the configured endpoint. */
  readonly useConfiguredModel?: boolean;
  readonly configuredModel?: () => Model;
}

/**
 * Runs every case of a suite, one after the other (cases share nothing, but
 * a steady order keeps reports comparable), and computes the metrics of all
 * their runs.
 *
 * @example
 * const report = await runSuite({ suite: loadSuite({ directory: 'evals/shop' }), toolkits: { shop: shopToolkit } });
 * console.log(`${report.passed}/${report.cases.length} passed`);
 */
export async function runSuite({
  suite,
  toolkits = {},
  useConfiguredModel = false,
  configuredModel,
}: RunSuiteOptions): Promise<SuiteReport> {
  const toolkit = suite.toolkit === undefined ? undefined : toolkits[suite.toolkit];
  if (suite.toolkit !== undefined && toolkit === undefined) {
    const file = join(suite.directory, 'suite.json');
    const known = Object.keys(toolkits);
    throw new InputFileError({
      file,
      problem: `toolkit "${suite.toolkit}" is not available here (${known.length === 0 ? 'none is' : `available: ${known.join(', ')}`})`,
    });
  }
  const cases: CaseResult[] = [];
  for (const evalCase of suite.cases) {
    cases.push(
      await runEvalCase({
        evalCase,
        fixtures: suite.fixtures,
        useConfiguredModel,
        ...(toolkit === undefined ? {} : { toolkit }),
        ...(configuredModel === undefined ? {} : { configuredModel }),
      }),
    );
  }
  const passed = cases.filter((result) => result.passed).length;
  return {
    suite: suite.name,
    cases,
    passed,
    failed: cases.length - passed,
    metrics: computeMetrics(cases.flatMap((result) => result.runs)),
  };
}
