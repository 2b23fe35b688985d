export {
  type Baseline,
  type BaselineCase,
  type BaselineComparison,
  compareWithBaseline,
  readBaseline,
  toBaseline,
} from './baseline.js';
export { type CaseApprover, caseApprovals } from './case-approvals.js';
export { type CaseTranscript, checkExpectations, checkText } from './check-expectations.js';
export { type ErrorStyle, errorDescriber } from './error-describer.js';
export {
  type BrokenCall,
  type BrokenCallCorpus,
  type ExperimentOutcome,
  type ExperimentReport,
  type ExperimentRow,
  readBrokenCallCorpus,
  runErrorMessageExperiment,
  type StyleSummary,
} from './error-message-experiment.js';
export type {
  CaseExpectations,
  CaseGateSpec,
  CaseModel,
  ErrorExpectation,
  EvalCase,
  TextChecks,
  ToolSelection,
} from './eval-case.js';
export { caseFileSchema, fixtureFileSchema, suiteFileSchema } from './eval-file-schemas.js';
export type { EvalToolkit, EvalToolkitFactory } from './eval-toolkit.js';
export { findInternalDetails, type InternalDetail } from './find-internal-details.js';
export { createFixtureTools, type FixtureToolSpec } from './fixture-tools.js';
export { formatExperimentReport } from './format-experiment-report.js';
export { formatCaseTable, formatSuiteReport } from './format-suite-report.js';
export { type EvalSuite, loadSuite } from './load-suite.js';
export { builtInRoutingSet, type RoutingQuery, type RoutingSet, readRoutingSet } from './routing-set.js';
export { type CaseResult, type RunEvalCaseOptions, runEvalCase } from './run-eval-case.js';
export { type RunSuiteOptions, runSuite, type SuiteReport } from './run-suite.js';
