export { type AgentMetrics, computeMetrics, percentile, type TokenPrice } from './compute-metrics.js';
export { formatMetricsTable } from './format-metrics.js';
export { type OpenTelemetryHandle, type StartOpenTelemetryOptions, startOpenTelemetry } from './open-telemetry.js';
export { metricsToPrometheus } from './prometheus-metrics.js';
export { formatPercent, renderTable, type TableColumn } from './render-table.js';
export { createRunCollector, type RunCollector } from './run-collector.js';
export {
  observeRunRecord,
  observeRunTrace,
  observeTraceLines,
  type RunObservation,
  type ToolCallCounts,
} from './run-observation.js';
export {
  type CallStatus,
  type CallTrace,
  digestArguments,
  digestResult,
  type GateOutcome,
  type RunEnd,
  type RunTrace,
  type StepTrace,
} from './run-trace.js';
export {
  parseTraceLines,
  runLine,
  stepLine,
  type TraceCallLine,
  type TraceLine,
  type TraceRunLine,
  type TraceStepLine,
} from './trace-line.js';
export { TraceRecorder, type TraceRecorderOptions } from './trace-recorder.js';
export { createTraceWriter, type TraceSink, type TraceWriter } from './trace-writer.js';
