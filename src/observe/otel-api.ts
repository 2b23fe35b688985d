/**
 * The slice of `@opentelemetry/api` arbiter uses, typed here so the package
 * stays an optional dependency: nothing in src/ imports it statically.
 */

export type OtelAttributeValue = string | number | boolean | string[];
export type OtelAttributes = Record<string, OtelAttributeValue>;

export interface OtelSpan {
  setAttribute(key: string, value: OtelAttributeValue): unknown;
  setAttributes(attributes: OtelAttributes): unknown;
  addEvent(name: string, attributes?: OtelAttributes, time?: number): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
}

export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; startTime?: number; attributes?: OtelAttributes },
    context?: unknown,
  ): OtelSpan;
}

/** What `trace.getTracerProvider()` returns, or an SDK's `BasicTracerProvider`. */
export interface OtelTracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
}

export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

export interface OtelMeter {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
  ): OtelHistogram;
}

/** What `metrics.getMeterProvider()` returns, or an SDK's `MeterProvider`. */
export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
}

export interface OtelApi {
  readonly trace: {
    getTracerProvider(): OtelTracerProvider;
    setSpan(context: unknown, span: OtelSpan): unknown;
  };
  readonly context: { active(): unknown };
  /** Absent from very old API versions: then no metrics are recorded. */
  readonly metrics?: { getMeterProvider(): OtelMeterProvider };
}

/** SpanKind and SpanStatusCode values of the OpenTelemetry API (stable since 1.0). */
export const spanKind = { internal: 0, client: 2 } as const;
export const spanStatusError = 2;

/**
 * The loaded module as the OpenTelemetry API, or undefined when it does not
 * look like one. Accepts the module namespace or its `default` export.
 *
 * @example
 * const api = asOtelApi(await import('@opentelemetry/api'));
 */
export function asOtelApi(loaded: unknown): OtelApi | undefined {
  for (const candidate of [loaded, (loaded as { default?: unknown } | null)?.default]) {
    if (!isObject(candidate)) continue;
    const { trace, context, metrics } = candidate as { trace?: unknown; context?: unknown; metrics?: unknown };
    if (
      isObject(trace) &&
      hasFunction(trace, 'getTracerProvider') &&
      hasFunction(trace, 'setSpan') &&
      isObject(context) &&
      hasFunction(context, 'active')
    ) {
      const withMetrics = isObject(metrics) && hasFunction(metrics, 'getMeterProvider');
      const api = candidate as OtelApi;
      return withMetrics ? api : { trace: api.trace, context: api.context };
    }
  }
  return undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function hasFunction(value: object, name: string): boolean {
  return typeof (value as Record<string, unknown>)[name] === 'function';
}
