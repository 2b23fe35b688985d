import type { OtelAttributes, OtelMeter } from './otel-api.js';

/** Bucket boundaries the GenAI semantic conventions advise for `gen_ai.client.token.usage`. */
export const tokenUsageBuckets = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** Bucket boundaries (seconds) the GenAI semantic conventions advise for `gen_ai.client.operation.duration`. */
export const operationDurationBuckets = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** One model call as the metrics see it. */
export interface ModelCallMeasure {
  /** `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.model`… */
  readonly attributes: OtelAttributes;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
  /** Set when the call failed: `error.type` on the duration; no token usage is recorded. */
  readonly errorType?: string;
}

/** Records the two GenAI client metrics. */
export interface GenAiMetrics {
  recordModelCall(measure: ModelCallMeasure): void;
}

/**
 * The GenAI client metrics on a meter: `gen_ai.client.token.usage` (a
 * histogram in `{token}`, one record per token type: `gen_ai.token.type` =
 * `input` or `output`) and `gen_ai.client.operation.duration` (a histogram
 * in seconds, with `error.type` when the call failed), both with the
 * conventions' advised bucket boundaries.
 *
 * @example
 * const metrics = createGenAiMetrics(meterProvider.getMeter('arbiter'));
 * metrics.recordModelCall({ attributes: { 'gen_ai.operation.name': 'chat' }, inputTokens: 120, outputTokens: 8, durationMs: 640 });
 */
export function createGenAiMetrics(meter: OtelMeter): GenAiMetrics {
  const tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
    description: 'Number of input and output tokens used.',
    unit: '{token}',
    advice: { explicitBucketBoundaries: tokenUsageBuckets },
  });
  const duration = meter.createHistogram('gen_ai.client.operation.duration', {
    description: 'GenAI operation duration.',
    unit: 's',
    advice: { explicitBucketBoundaries: operationDurationBuckets },
  });
  return {
    recordModelCall({ attributes, inputTokens, outputTokens, durationMs, errorType }) {
      duration.record(
        Math.max(0, durationMs) / 1000,
        errorType === undefined ? attributes : { ...attributes, 'error.type': errorType },
      );
      if (errorType !== undefined) return;
      tokenUsage.record(inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
      tokenUsage.record(outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    },
  };
}
