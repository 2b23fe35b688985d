import type { AgentEvent } from '../events/agent-event.js';
import type { ToolSet } from '../tools/tool-registry.js';

const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Labels = Readonly<Record<string, string>>;

/** Which series `render` writes: all, or only those labelled with one tenant. */
type LabelFilter = (labels: Labels) => boolean;

const everything: LabelFilter = () => true;

/** The label of a tool name the registry does not know (a model may invent any). */
export const unknownToolLabel = 'unknown';

class Counter {
  readonly name: string;
  readonly help: string;
  readonly #values = new Map<string, { labels: Labels; value: number }>();

  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.#values.get(key);
    if (entry === undefined) this.#values.set(key, { labels, value: by });
    else entry.value += by;
  }

  render(filter: LabelFilter = everything): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, { labels, value }] of this.#values) if (filter(labels)) lines.push(`${this.name}${key} ${value}`);
    return lines;
  }
}

class Histogram {
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  readonly name: string;
  readonly help: string;
  readonly buckets: readonly number[];

  constructor(name: string, help: string, buckets: readonly number[] = secondsBuckets) {
    this.name = name;
    this.help = help;
    this.buckets = buckets;
  }

  observe(value: number, labels: Labels = {}): void {
    const key = labelText(labels);
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    this.buckets.forEach((bound, index) => {
      if (value <= bound && series !== undefined) series.counts[index] = (series.counts[index] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  render(filter: LabelFilter = everything): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      if (!filter(labels)) continue;
      this.buckets.forEach((bound, index) => {
        lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${counts[index] ?? 0}`);
      });
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${Number(sum.toFixed(6))}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines;
  }
}

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const escapeValue = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  return `{${entries.map(([name, value]) => `${name}="${escapeValue(value)}"`).join(',')}}`;
}

/**
 * The server's Prometheus metrics, computed from the agent events it
 * observes and the requests it serves: runs by stop reason, tool calls by
 * outcome, gate decisions, and latency histograms (runs, tools, HTTP,
 * delivery of an event to an SSE client).
 *
 * Label values stay bounded: a tool name `tools` does not know (a model
 * can invent any) is counted as `unknown`, and the run series carry the
 * `tenant` the run belongs to (`tenantOf`), so `render({ tenantId })` can
 * show one tenant its own series and nothing of the others.
 *
 * @example
 * const metrics = new ServerMetrics({ tools: registry, tenantOf: (runId) => runs.find(runId)?.tenantId });
 * bus.subscribe((event) => metrics.observe(event));
 * app.get('/metrics', (c) => c.text(metrics.render()));
 */
export class ServerMetrics {
  readonly #tools: ToolSet;
  readonly #tenantOf: (runId: string) => string | undefined;
  /** Tenants of runs seen since their last `run:start`, so a run is looked up once per stretch. */
  readonly #tenants = new Map<string, string>();
  readonly #runs = new Counter(
    'arbiter_runs_total',
    'Runs (or resumed stretches of runs) that stopped, by stop reason.',
  );
  readonly #toolCalls = new Counter(
    'arbiter_tool_calls_total',
    'Tool calls by tool and outcome (ok or the failing stage).',
  );
  readonly #gate = new Counter('arbiter_gate_decisions_total', 'Gate decisions by decision.');
  readonly #runSeconds = new Histogram('arbiter_run_duration_seconds', 'Wall-clock time of a run, per stretch.');
  readonly #toolSeconds = new Histogram('arbiter_tool_duration_seconds', 'Time of a tool call, by tool.');
  readonly #httpSeconds = new Histogram('arbiter_http_request_duration_seconds', 'HTTP request time, by route.');
  readonly #deliverySeconds = new Histogram(
    'arbiter_sse_delivery_seconds',
    'From an event being emitted to it being written to an SSE client.',
  );
  readonly #approved = new Set<string>();
  #openStreams = 0;
  #activeRuns = 0;

  constructor({
    tools,
    tenantOf = () => undefined,
  }: {
    /** The registered tools; any other name is labelled `unknown`. */
    tools: ToolSet;
    /** The tenant of a run, for the `tenant` label; `unknown` where it returns `undefined`. */
    tenantOf?: (runId: string) => string | undefined;
  }) {
    this.#tools = tools;
    this.#tenantOf = tenantOf;
  }

  observe(event: AgentEvent): void {
    switch (event.type) {
      case 'run:start':
        this.#activeRuns += 1;
        this.#tenants.delete(event.runId);
        break;
      case 'run:end':
        this.#activeRuns = Math.max(0, this.#activeRuns - 1);
        this.#runs.inc({ tenant: this.#tenant(event.runId), stop_reason: event.stopReason });
        this.#runSeconds.observe(event.durationMs / 1000, { tenant: this.#tenant(event.runId) });
        this.#tenants.delete(event.runId);
        break;
      case 'run:error':
        this.#activeRuns = Math.max(0, this.#activeRuns - 1);
        this.#runs.inc({ tenant: this.#tenant(event.runId), stop_reason: 'error' });
        this.#tenants.delete(event.runId);
        break;
      case 'tool:start': {
        const key = `${event.runId}:${event.toolCallId}`;
        if (!this.#approved.delete(key)) this.#gate.inc({ tenant: this.#tenant(event.runId), decision: 'allowed' });
        break;
      }
      case 'tool:end': {
        const labels = { tenant: this.#tenant(event.runId), tool: this.#tool(event.tool) };
        this.#toolCalls.inc({ ...labels, outcome: 'ok' });
        this.#toolSeconds.observe(event.durationMs / 1000, labels);
        break;
      }
      case 'tool:error': {
        const labels = { tenant: this.#tenant(event.runId), tool: this.#tool(event.tool) };
        this.#toolCalls.inc({ ...labels, outcome: event.stage });
        if (event.stage === 'execution') this.#toolSeconds.observe(event.durationMs / 1000, labels);
        if (event.stage === 'gate' && event.code !== 'rejected_by_approver' && event.code !== 'approval_denied') {
          this.#gate.inc({ tenant: labels.tenant, decision: 'denied' });
        }
        break;
      }
      case 'approval:required':
        this.#gate.inc({ tenant: this.#tenant(event.runId), decision: 'require_approval' });
        break;
      case 'approval:resolved':
        this.#gate.inc({ tenant: this.#tenant(event.runId), decision: event.decision });
        if (event.decision === 'approved') this.#approved.add(`${event.runId}:${event.toolCallId}`);
        break;
      default:
        break;
    }
  }

  observeRequest({
    route,
    method,
    status,
    seconds,
  }: {
    route: string;
    method: string;
    status: number;
    seconds: number;
  }): void {
    this.#httpSeconds.observe(seconds, { method, route, status: String(status) });
  }

  observeDelivery(seconds: number): void {
    this.#deliverySeconds.observe(seconds);
  }

  streamOpened(): void {
    this.#openStreams += 1;
  }

  streamClosed(): void {
    this.#openStreams = Math.max(0, this.#openStreams - 1);
  }

  get openStreams(): number {
    return this.#openStreams;
  }

  /**
   * The Prometheus text exposition (version 0.0.4). With `tenantId`, only
   * that tenant's run, tool and gate series; the process-wide ones (HTTP,
   * SSE, memory, active runs) are left out, as they mix every tenant.
   */
  render({ tenantId }: { tenantId?: string } = {}): string {
    if (tenantId !== undefined) {
      const own: LabelFilter = (labels) => labels['tenant'] === tenantId;
      return [
        ...this.#runs.render(own),
        ...this.#toolCalls.render(own),
        ...this.#gate.render(own),
        ...this.#runSeconds.render(own),
        ...this.#toolSeconds.render(own),
        '',
      ].join('\n');
    }
    const memory = process.memoryUsage();
    const gauge = (name: string, help: string, value: number) => [
      `# HELP ${name} ${help}`,
      `# TYPE ${name} gauge`,
      `${name} ${value}`,
    ];
    return [
      ...this.#runs.render(),
      ...this.#toolCalls.render(),
      ...this.#gate.render(),
      ...this.#runSeconds.render(),
      ...this.#toolSeconds.render(),
      ...this.#httpSeconds.render(),
      ...this.#deliverySeconds.render(),
      ...gauge('arbiter_active_runs', 'Runs executing in this process now.', this.#activeRuns),
      ...gauge('arbiter_sse_streams', 'Open SSE connections.', this.#openStreams),
      ...gauge('process_resident_memory_bytes', 'Resident memory of the server process.', memory.rss),
      ...gauge('nodejs_heap_used_bytes', 'V8 heap in use.', memory.heapUsed),
      '',
    ].join('\n');
  }

  #tenant(runId: string): string {
    const known = this.#tenants.get(runId);
    if (known !== undefined) return known;
    const tenant = this.#tenantOf(runId);
    if (tenant === undefined) return 'unknown';
    this.#tenants.set(runId, tenant);
    return tenant;
  }

  #tool(name: string): string {
    return this.#tools.get(name) === undefined ? unknownToolLabel : name;
  }
}
