/**
 * @module
 * `@arbiter-runtime/core/evaluation`: evaluation suites (`suite.json`, one
 * case per file, scripted or on the configured model), their reports and
 * baselines, the error-message experiment, and the built-in routing set
 * (`builtInRoutingSet`: its directory inside the package). A suite names a toolkit
 * (its tools, gate rules and state) that the caller supplies.
 *
 * @example
 * import { formatSuiteReport, loadSuite, runSuite } from '@arbiter-runtime/core/evaluation';
 * const report = await runSuite({ suite: loadSuite({ directory: 'evals/shop' }), toolkits: { shop: shopToolkit } });
 * console.log(formatSuiteReport({ report }).join('\n'));
 */

export { type ErrorStyle, errorDescriber } from './evaluation/error-describer.js';
export {
  type Baseline,
  type BaselineCase,
  type BaselineComparison,
  type BrokenCall,
  type BrokenCallCorpus,
  builtInRoutingSet,
  type CaseApprover,
  type CaseExpectations,
  type CaseGateSpec,
  type CaseModel,
  type CaseResult,
  type CaseTranscript,
  checkExpectations,
  compareWithBaseline,
  type ErrorExpectation,
  type EvalCase,
  type EvalSuite,
  type EvalToolkit,
  type EvalToolkitFactory,
  type ExperimentOutcome,
  type ExperimentReport,
  type ExperimentRow,
  findInternalDetails,
  formatCaseTable,
  formatExperimentReport,
  formatSuiteReport,
  type InternalDetail,
  loadSuite,
  type RoutingQuery,
  type RoutingSet,
  type RunEvalCaseOptions,
  type RunSuiteOptions,
  readBaseline,
  readBrokenCallCorpus,
  readRoutingSet,
  runErrorMessageExperiment,
  runEvalCase,
  runSuite,
  type StyleSummary,
  type SuiteReport,
  type TextChecks,
  type ToolSelection,
  toBaseline,
} from './evaluation/index.js';
