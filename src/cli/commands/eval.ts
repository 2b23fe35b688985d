import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openShopDatabase, ShopDatabase } from '../../../examples/shop/shop-database.js';
import { createShopDomain } from '../../../examples/shop/shop-domain.js';
import { InputFileError } from '../../errors/input-file-error.js';
import { ModelError } from '../../errors/model-error.js';
import { UsageError } from '../../errors/usage-error.js';
import { type BaselineComparison, compareWithBaseline, readBaseline, toBaseline } from '../../evaluation/baseline.js';
import { readBrokenCallCorpus, runErrorMessageExperiment } from '../../evaluation/error-message-experiment.js';
import type { EvalToolkitFactory } from '../../evaluation/eval-toolkit.js';
import { formatExperimentReport } from '../../evaluation/format-experiment-report.js';
import { formatSuiteReport } from '../../evaluation/format-suite-report.js';
import { loadSuite } from '../../evaluation/load-suite.js';
import { runSuite, type SuiteReport } from '../../evaluation/run-suite.js';
import { readModelConfig } from '../../models/model-config.js';
import type { CommandResult } from '../cli-output.js';

/** The experiments `--experiment` knows. */
export const experiments = ['error-messages'] as const;

export interface EvalCommandOptions {
  /** The suite directory. Default `evals/shop`. */
  readonly suite?: string;
  /** Compare with this baseline; exit 1 on any case that went from pass to fail. */
  readonly baseline?: string;
  /** Save this run's verdicts as the baseline. */
  readonly writeBaseline?: string;
  readonly json?: boolean;
  /** Run an experiment instead of the suite's cases. */
  readonly experiment?: (typeof experiments)[number];
  /** `configured`: run every case on the `ARBITER_*` endpoint instead of its scripted model. */
  readonly model?: 'scripted' | 'configured';
}

/**
 * A repository that never finds an order, for the retry-storm case.
 * `"toolkitOptions": {"repository": "always_not_found"}`.
 */
class NotFoundShopDatabase extends ShopDatabase {
  override findOrder(): undefined {
    return undefined;
  }
}

/**
 * The demo shop as an evaluation toolkit, wired by `createShopDomain` as
 * the demo and the server are: a fresh in-memory database per
 * case, a fixed clock, the shop's gate rules (the refund hard cap; the
 * tool's own rule approves refunds under 50.00 yuan and sends larger ones to
 * a person), and `state()` reporting how many refunds and order notes exist
 * (the seed has 2 refunds and no notes).
 *
 * @example
 * await runSuite({ suite: loadSuite({ directory: 'evals/shop' }), toolkits: { shop: shopEvalToolkit } });
 */
export const shopEvalToolkit: EvalToolkitFactory = (options) => {
  const repository = options['repository'];
  if (repository !== undefined && repository !== 'always_not_found') {
    throw new UsageError({
      message: `shop toolkit: repository must be "always_not_found", got ${JSON.stringify(repository)}`,
    });
  }
  const database = openShopDatabase({ path: ':memory:' });
  const count = (table: 'refunds' | 'order_notes') =>
    (database.connection.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
  const { tools, gateRules } = createShopDomain({
    database: repository === undefined ? database : new NotFoundShopDatabase(database.connection),
    now: () => new Date('2026-09-05T08:00:00Z'),
  });
  return {
    tools,
    gateRules,
    state: () => ({ refunds: count('refunds'), notes: count('order_notes') }),
    close: () => database.close(),
  };
};

/** The toolkits a suite may name. */
export const evalToolkits: Readonly<Record<string, EvalToolkitFactory>> = { shop: shopEvalToolkit };

/**
 * `arbiter eval [--suite DIR] [--baseline FILE] [--write-baseline FILE]
 * [--json] [--model scripted|configured]`: runs every case of a suite and
 * prints a table per case, why failing cases failed, a summary with the
 * runs' metrics, and against a baseline the cases that went from pass to
 * fail and from fail to pass. Exit 1 on any regression against the
 * baseline (without one, on any failing case), 2 on a bad suite, baseline
 * or model configuration.
 *
 * `arbiter eval --experiment error-messages [--suite DIR]` runs the
 * message-quality experiment on the suite's corpus of broken calls
 * (`DIR/experiments/error-messages.json`) instead.
 *
 * @example
 * const result = await evalCommand({ suite: 'evals/shop', baseline: 'evals/shop/baseline.json' });
 * process.exitCode = result.exitCode;
 */
export async function evalCommand({
  suite: directory = 'evals/shop',
  baseline: baselineFile,
  writeBaseline,
  json = false,
  experiment,
  model = 'scripted',
}: EvalCommandOptions): Promise<CommandResult> {
  try {
    const suite = loadSuite({ directory });
    if (experiment !== undefined) {
      const corpus = readBrokenCallCorpus(join(directory, 'experiments', `${experiment}.json`));
      const toolkit = suite.toolkit === undefined ? undefined : evalToolkits[suite.toolkit];
      const report = await runErrorMessageExperiment({
        corpus,
        fixtures: suite.fixtures,
        ...(toolkit === undefined ? {} : { toolkit }),
      });
      return { exitCode: 0, stdout: json ? [JSON.stringify(report)] : formatExperimentReport(report), stderr: [] };
    }
    if (model === 'configured') readModelConfig();
    const baseline = baselineFile === undefined ? undefined : readBaseline(baselineFile);
    const report = await runSuite({ suite, toolkits: evalToolkits, useConfiguredModel: model === 'configured' });
    const comparison = baseline === undefined ? undefined : compareWithBaseline({ report, baseline });
    if (writeBaseline !== undefined) writeFileSync(writeBaseline, `${JSON.stringify(toBaseline(report), null, 2)}\n`);
    const exitCode = comparison === undefined ? (report.failed > 0 ? 1 : 0) : comparison.regressions.length > 0 ? 1 : 0;
    const stdout = json
      ? [JSON.stringify(jsonReport(report, comparison))]
      : formatSuiteReport({
          report,
          ...(comparison === undefined ? {} : { comparison }),
          ...(baselineFile === undefined ? {} : { baselineFile }),
        });
    return { exitCode, stdout, stderr: [] };
  } catch (error) {
    if (InputFileError.isInstance(error) || UsageError.isInstance(error) || ModelError.isInstance(error)) {
      return { exitCode: 2, stdout: [], stderr: [error.message] };
    }
    throw error;
  }
}

/**
 * Parses `arbiter eval`'s flags and runs it: what `main.ts` calls.
 *
 * @example
 * process.exitCode = print(await evalFromArgs(['--suite', 'evals/shop', '--json']));
 */
export async function evalFromArgs(args: readonly string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      suite: { type: 'string' },
      baseline: { type: 'string' },
      'write-baseline': { type: 'string' },
      json: { type: 'boolean', default: false },
      experiment: { type: 'string' },
      model: { type: 'string', default: 'scripted' },
    },
  });
  const { experiment, model } = values;
  if (experiment !== undefined && !experiments.some((known) => known === experiment)) {
    return usage(`--experiment must be one of ${experiments.join(', ')}, got "${experiment}"`);
  }
  if (model !== 'scripted' && model !== 'configured') {
    return usage(`--model must be scripted or configured, got "${model}"`);
  }
  return evalCommand({
    json: values.json,
    model,
    ...(values.suite === undefined ? {} : { suite: values.suite }),
    ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
    ...(values['write-baseline'] === undefined ? {} : { writeBaseline: values['write-baseline'] }),
    ...(experiment === undefined ? {} : { experiment: experiment as (typeof experiments)[number] }),
  });
}

function usage(message: string): CommandResult {
  return { exitCode: 2, stdout: [], stderr: [message] };
}

function jsonReport(report: SuiteReport, comparison: BaselineComparison | undefined) {
  return {
    suite: report.suite,
    passed: report.passed,
    failed: report.failed,
    cases: report.cases.map(({ runs: _runs, ...result }) => result),
    metrics: report.metrics,
    ...(comparison === undefined ? {} : { baseline: comparison }),
  };
}
