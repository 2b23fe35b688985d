import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ArbiterError } from '../../errors/arbiter-error.js';
import { type BaselineComparison, compareWithBaseline, readBaseline, toBaseline } from '../../evaluation/baseline.js';
import { readBrokenCallCorpus, runErrorMessageExperiment } from '../../evaluation/error-message-experiment.js';
import { formatExperimentReport } from '../../evaluation/format-experiment-report.js';
import { formatRoutingReport } from '../../evaluation/format-routing-report.js';
import { formatSuiteReport } from '../../evaluation/format-suite-report.js';
import { loadSuite } from '../../evaluation/load-suite.js';
import { evaluateRouting } from '../../evaluation/routing-evaluation.js';
import { builtInRoutingSet, readRoutingSet } from '../../evaluation/routing-set.js';
import { runSuite, type SuiteReport } from '../../evaluation/run-suite.js';
import { createProviderModel, readConfiguredProvider } from '../../models/ai-sdk/create-provider-model.js';
import type { Model } from '../../models/model.js';
import { readModelConfig } from '../../models/model-config.js';
import type { CommandResult } from '../cli-output.js';
import { loadDemoModule } from '../demo-module.js';

/** The experiments `--experiment` knows. */
export const experiments = ['error-messages', 'routing'] as const;

export interface EvalCommandOptions {
  /** The suite directory. Default: the shop example's suite (`evals/shop`, shipped with the package). */
  readonly suite?: string;
  /** Compare with this baseline; exit 1 on any case that went from pass to fail. */
  readonly baseline?: string;
  /** Save this run's verdicts as the baseline. */
  readonly writeBaseline?: string;
  readonly json?: boolean;
  /** Run an experiment instead of the suite's cases. */
  readonly experiment?: (typeof experiments)[number];
  /**
   * `configured`: run every case on the configured model instead of its
   * scripted one: the AI SDK provider `ARBITER_PROVIDER` names, with
   * `ARBITER_MODEL`, or else the `ARBITER_*` OpenAI-compatible endpoint.
   */
  readonly model?: 'scripted' | 'configured';
  /** For `--experiment routing`: how many tools are sent per step. Default 6. */
  readonly top?: number;
  /** Where `ARBITER_*` (and `ARBITER_PROVIDER`) are read. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

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
 * `arbiter eval --experiment routing [--suite DIR] [--top K]` evaluates tool
 * routing on a routing set (default `evals/routing`: `tools.json` and
 * labelled `queries.jsonl`): recall at 1, 3 and 5, and the tool-definition
 * tokens per step with and without routing.
 *
 * @example
 * const result = await evalCommand({ suite: 'evals/shop', baseline: 'evals/shop/baseline.json' });
 * process.exitCode = result.exitCode;
 */
export async function evalCommand({
  suite: requestedDirectory,
  baseline: baselineFile,
  writeBaseline,
  json = false,
  experiment,
  model = 'scripted',
  top,
  environment = process.env,
}: EvalCommandOptions): Promise<CommandResult> {
  try {
    if (experiment === 'routing') {
      const set = readRoutingSet(requestedDirectory ?? builtInRoutingSet);
      const report = evaluateRouting({ set, ...(top === undefined ? {} : { topK: top }) });
      return { exitCode: 0, stdout: json ? [JSON.stringify(report)] : formatRoutingReport(report), stderr: [] };
    }
    // The toolkits a suite may name, and the default suite, are the shop example's (loaded at run time).
    const { evalSuite, evalToolkits } = await loadDemoModule();
    const directory = requestedDirectory ?? evalSuite;
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
    // `configured`: the AI SDK provider ARBITER_PROVIDER names (loaded once, here), else the ARBITER_* endpoint.
    const wantsConfigured = model === 'configured' || suite.cases.some((evalCase) => evalCase.model === 'configured');
    let providerModel: Model | undefined;
    if (wantsConfigured && readConfiguredProvider(environment) !== undefined) {
      providerModel = await createProviderModel({ env: environment });
    } else if (model === 'configured') readModelConfig(environment);
    const baseline = baselineFile === undefined ? undefined : readBaseline(baselineFile);
    const report = await runSuite({
      suite,
      toolkits: evalToolkits,
      useConfiguredModel: model === 'configured',
      ...(providerModel === undefined ? {} : { configuredModel: () => providerModel }),
    });
    const comparison = baseline === undefined ? undefined : compareWithBaseline({ report, baseline });
    const replaced = writeBaseline !== undefined && existsSync(writeBaseline);
    if (writeBaseline !== undefined) writeFileSync(writeBaseline, `${JSON.stringify(toBaseline(report), null, 2)}\n`);
    // Said every time: a baseline replaced by accident is a regression check silently moved.
    const written =
      writeBaseline === undefined
        ? []
        : [`baseline ${replaced ? 'replaced' : 'written'}: ${writeBaseline} (${report.cases.length} cases)`];
    const exitCode = comparison === undefined ? (report.failed > 0 ? 1 : 0) : comparison.regressions.length > 0 ? 1 : 0;
    const stdout = json
      ? [JSON.stringify(jsonReport(report, comparison))]
      : formatSuiteReport({
          report,
          ...(comparison === undefined ? {} : { comparison }),
          ...(baselineFile === undefined ? {} : { baselineFile }),
        });
    return json ? { exitCode, stdout, stderr: written } : { exitCode, stdout: [...stdout, ...written], stderr: [] };
  } catch (error) {
    // A bad suite, baseline or model configuration, or a toolkit refusing its options: said, exit 2.
    if (ArbiterError.isInstance(error)) {
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
      top: { type: 'string' },
    },
  });
  const { experiment, model } = values;
  const top = values.top === undefined ? undefined : Number(values.top);
  if (top !== undefined && !(Number.isInteger(top) && top >= 1)) {
    return usage(`--top must be a whole number of at least 1, got "${values.top}"`);
  }
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
    ...(top === undefined ? {} : { top }),
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
