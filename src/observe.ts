/**
 * @module
 * `@arbiter-runtime/core/observe`: what a run looks like from outside:
 * progress printed on a terminal (or as NDJSON events), traces as JSON
 * lines, metrics over stored runs (a table, Prometheus text), and
 * OpenTelemetry GenAI spans.
 *
 * @example
 * import { createProgressPrinter, createTraceWriter } from '@arbiter-runtime/core/observe';
 * const printer = createProgressPrinter({ write: (text) => process.stdout.write(text), tty: process.stdout.isTTY });
 * events.subscribe(printer.listener);
 * const trace = createTraceWriter({ bus: events, write: (line) => appendFileSync('traces.jsonl', `${line}\n`) });
 */
export {
  type AgentMetrics,
  type CallStatus,
  type CallTrace,
  computeMetrics,
  createRunCollector,
  createTraceWriter,
  formatMetricsTable,
  type GateOutcome,
  metricsToPrometheus,
  type OpenTelemetryHandle,
  observeRunRecord,
  observeRunTrace,
  observeTraceLines,
  parseTraceLines,
  percentile,
  type RunCollector,
  type RunEnd,
  type RunObservation,
  type RunTrace,
  type StartOpenTelemetryOptions,
  type StepTrace,
  startOpenTelemetry,
  type TokenPrice,
  type ToolCallCounts,
  type TraceCallLine,
  type TraceLine,
  TraceRecorder,
  type TraceRecorderOptions,
  type TraceRunLine,
  type TraceSink,
  type TraceStepLine,
  type TraceWriter,
} from './observe/index.js';
export { createProgressCollector, type ProgressCollector } from './observe/progress-collector.js';
export {
  createNdjsonPrinter,
  createProgressPrinter,
  type EventPrinter,
  type ProgressPrinterOptions,
} from './observe/progress-printer.js';
