/**
 * The HTTP server under many streams, on loopback: 1,000 SSE clients at once
 * (`SSE_CLIENTS` to change it),
 * each starting a run (the shop's order question on the offline scripted
 * model, paced like a person reading: 40 ms to think per step, 5 ms per text
 * fragment) and following it to its `run:end`. A warm-up of 50 clients
 * (not measured), then three rounds on one server, so the later rounds show
 * whether memory keeps growing.
 *
 * A round has two phases. First every client creates its session, sends its
 * message and opens its run's stream, while the server holds each run at
 * its first model call (the run has begun: its `run:start` is logged); so
 * all 1,000 streams are open at once, and what follows is live, not a
 * replay of what a run did before its client's stream opened. Then the
 * held runs go on, each at a moment drawn uniformly within
 * `SSE_START_SPREAD_MS` (default 5 s, 200 run starts a second; 0 releases
 * all at once, which measures a thundering herd of 1,000 agent steps in the
 * same 40 ms rather than the streams).
 *
 * The server runs in a child process (started with `--expose-gc`), so its
 * memory is the server's alone; the clients use node:http in this process.
 * Delivery latency is the event's `at` (when the agent emitted it, server
 * clock) to the moment a client parsed it (same machine, same clock): over
 * the events emitted while the client was connected (live), and over every
 * event, which adds the replay of what happened before the client's stream
 * opened. Because this process's own lateness (1,000 clients parsing on a
 * shared 2-core machine) counts in that latency too, both processes'
 * event-loop delay over the live phase is printed beside it, with the CPU
 * time each used, and the machine's load average when the round began.
 *
 * Ratios: `sse.run_end_received` (clients that got their run:end / clients;
 * must be 1), `sse.heap_growth` and `sse.rss_growth` (after the last round / after
 * round 1, both after a GC; about 1 means bounded).
 *
 * Issue 17's targets, over all rounds: every client gets its run's terminal
 * event (`run:end` or `run:error`), the live delivery p99 of the worst round
 * under 50 ms, and the server's peak resident memory (`maxRSS`, not after a
 * GC) under 300 MB.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Model } from '../src/models/model.js';
import { type BenchResult, formatVerdict, isMainModule, target } from './measure.js';

const clients = Number(process.env.SSE_CLIENTS ?? 1000);
const warmUpClients = 50;
const rounds = Number(process.env.SSE_ROUNDS ?? 3);
const roundTimeoutMs = 60_000;
/**
 * Once every stream is open, the held runs go on within this window (`SSE_START_SPREAD_MS`; 0: all at
 * once). 5 s is 200 run starts a second, a faster start rate than the connection burst gave the runs
 * before the streams were opened first (1,000 runs began over 5–14 s).
 */
const startSpreadMs = Number(process.env.SSE_START_SPREAD_MS ?? 5000);
const token = 'bench-token-0001-0123456789abcdef';

interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
  /** The process's peak resident set so far, in bytes. */
  readonly maxRss: number;
}

/** Event-loop delay over a phase, ms. */
interface LoopDelay {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** CPU time the process used over the phase (user + system), ms. */
  readonly cpuMs: number;
}

type ChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'memory'; memory: Memory }
  | { type: 'held' }
  | { type: 'released' }
  | { type: 'loop'; loop: LoopDelay };

interface RoundResult {
  readonly completed: number;
  /** Clients that got their run's terminal event (run:end or run:error). */
  readonly terminal: number;
  /** Streams connected a second time because the first request got no response at all. */
  readonly reconnects: number;
  readonly latenciesMs: number[];
  readonly liveLatenciesMs: number[];
  readonly events: number;
  readonly wallMs: number;
  /** From the round's start until every client's stream had opened (its run held at its first model call). */
  readonly connectedMs: number;
  /** The machine's 1-minute load average when the round began (2 cores: above 2, others wait for a core). */
  readonly loadAverage: number;
  /** The bench process's event-loop delay while the runs produced: how late this process itself parsed. */
  readonly clientLoop: LoopDelay;
  /** The server's event-loop delay over the same time. */
  readonly serverLoop: LoopDelay | undefined;
  readonly failures: string[];
}

/** Runs the benchmark; see the file's comment for what is measured. */
export async function runSseBench(): Promise<BenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'arbiter-sse-bench-'));
  const child = fork(fileURLToPath(import.meta.url), ['--serve-for-bench', dataDir], {
    execArgv: [
      ...process.execArgv,
      '--expose-gc',
      ...(process.env.SSE_SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const url = await waitFor<string>(child, (message) => (message.type === 'ready' ? message.url : undefined));
    const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
    await runRound({ url, agent, count: warmUpClients, child });
    const before = await memoryOf(child);
    const results: RoundResult[] = [];
    const after: Memory[] = [];
    const probes: string[] = [];
    for (let round = 0; round < rounds; round += 1) {
      results.push(await runRound({ url, agent, count: clients, child }));
      probes.push(await probe(url));
      after.push(await memoryOf(child));
    }
    agent.destroy();

    const lines = [
      `sse: ${clients} concurrent SSE clients on loopback, each following one run to its run:end, ${rounds} rounds`,
    ];
    results.forEach((result, index) => {
      const memory = after[index] as Memory;
      lines.push(
        `  round ${index + 1}: ${result.completed}/${clients} got run:end in ${Math.round(result.wallMs)} ms, ` +
          `${result.events.toLocaleString('en-US')} events; live delivery p50 ${percentile(result.liveLatenciesMs, 50)} ms, ` +
          `p99 ${percentile(result.liveLatenciesMs, 99)} ms (${result.liveLatenciesMs.length.toLocaleString('en-US')} events); ` +
          `with replay p50 ${percentile(result.latenciesMs, 50)} ms, p99 ${percentile(result.latenciesMs, 99)} ms; ` +
          `server rss ${megabytes(memory.rss)}, heap ${megabytes(memory.heapUsed)}`,
      );
      lines.push(
        `    load average ${result.loadAverage.toFixed(2)}; all ${clients} streams open after ${Math.round(result.connectedMs)} ms, ` +
          `then runs released over ${startSpreadMs} ms; while they produced, event-loop delay ` +
          `p50/p99/max: server ${formatLoop(result.serverLoop)}, bench clients ${formatLoop(result.clientLoop)}`,
      );
      lines.push(
        `    ${result.reconnects} streams reconnected (no response to the first request); ` +
          `then GET /healthz on a new connection: ${probes[index]}`,
      );
      for (const failure of result.failures.slice(0, 3)) lines.push(`    failure: ${failure}`);
    });
    const first = after[0] as Memory;
    const last = after.at(-1) as Memory;
    lines.push(
      `  server memory after GC: after warm-up rss ${megabytes(before.rss)} heap ${megabytes(before.heapUsed)}; ` +
        `after round 1 rss ${megabytes(first.rss)} heap ${megabytes(first.heapUsed)}; ` +
        `after round ${rounds} rss ${megabytes(last.rss)} heap ${megabytes(last.heapUsed)}`,
    );
    const completed = results.reduce((sum, result) => sum + result.completed, 0);
    const terminal = results.reduce((sum, result) => sum + result.terminal, 0);
    // A round whose streams all connected after their runs had ended has no live events to judge.
    const judged = results.filter((result) => result.liveLatenciesMs.length > 0);
    const worstP99 =
      judged.length === 0 ? Number.NaN : Math.max(...judged.map((result) => percentileOf(result.liveLatenciesMs, 99)));
    const liveEvents = judged.reduce((sum, result) => sum + result.liveLatenciesMs.length, 0);
    const peakRss = Math.max(...after.map((memory) => memory.maxRss));
    const targets = [
      target({
        id: 'sse_1000_terminal_delivered',
        description: `clients that got their terminal event / clients (${clients} at once, ${rounds} rounds)`,
        value: terminal / (clients * rounds),
        comparison: '>=',
        limit: 1,
      }),
      target({
        id: 'sse_1000_live_p99_ms',
        description: 'live delivery p99 of the worst round with live events, ms',
        value: worstP99,
        comparison: '<',
        limit: 50,
      }),
      target({
        id: 'sse_1000_peak_rss_mb',
        description: 'server peak resident memory (maxRSS), MB',
        value: peakRss / 1e6,
        comparison: '<',
        limit: 300,
      }),
    ];
    const worstClientLag = Math.max(...results.map((result) => result.clientLoop.p99));
    lines.push(
      `  terminal events delivered: ${terminal}/${clients * rounds}: ${formatVerdict(targets[0] as (typeof targets)[0])}`,
      `  live p99 (worst of ${judged.length} rounds with live events, ${liveEvents.toLocaleString('en-US')} events): ` +
        `${formatVerdict(targets[1] as (typeof targets)[0], 1)} ` +
        `(includes the bench clients' own event-loop delay, p99 up to ${worstClientLag} ms)`,
      `  server peak RSS: ${formatVerdict(targets[2] as (typeof targets)[0], 1)}`,
    );
    return {
      lines,
      ratios: {
        'sse.run_end_received': completed / (clients * rounds),
        'sse.heap_growth': last.heapUsed / first.heapUsed,
        'sse.rss_growth': last.rss / first.rss,
      },
      targets,
      figures: { clients, rounds, terminal, worstLiveP99Ms: worstP99, peakRssBytes: peakRss },
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Longer than the server's 5 s keep-alive timeout: the last round's idle sockets are closed before the next begins. */
const settleMs = 6_000;

async function runRound({
  url,
  agent,
  count,
  child,
}: {
  url: string;
  agent: Agent;
  count: number;
  child?: ChildProcess;
}): Promise<RoundResult> {
  // A socket kept alive since the last round and reused just as the server's idle timeout closes it fails
  // with a reset the server never saw as a request; a round begins with none.
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  if (child !== undefined) await ask(child, { type: 'hold' }, 'held');
  const loadAverage = loadavg()[0] ?? Number.NaN;
  const startedAt = performance.now();
  const latenciesMs: number[] = [];
  const liveLatenciesMs: number[] = [];
  const failures: string[] = [];
  let events = 0;
  let terminal = 0;
  let reconnects = 0;
  let arrived = 0;
  let allArrived: () => void = () => {};
  const everyoneConnected = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  const arrive = () => {
    arrived += 1;
    if (arrived === count) allArrived();
  };
  const deadline = AbortSignal.timeout(roundTimeoutMs);
  // Every client of the round listens to it: a thousand listeners are the design, not a leak.
  setMaxListeners(0, deadline);
  const outcomesPromise = Promise.all(
    Array.from({ length: count }, async () => {
      let connected = false;
      const onOpen = () => {
        if (connected) return;
        connected = true;
        arrive();
      };
      try {
        const session = await post(`${url}/v1/sessions`, {}, deadline);
        const message = await post(
          `${url}/v1/sessions/${session.id}/messages`,
          { content: 'Where is my order SO20260901?' },
          deadline,
        );
        const onEvent = (event: { type: string; at: number }, receivedAt: number, connectedAt: number) => {
          events += 1;
          const latency = Math.max(0, receivedAt - event.at);
          latenciesMs.push(latency);
          if (event.at >= connectedAt) liveLatenciesMs.push(latency);
          if (event.type === 'run:end' || event.type === 'run:error') terminal += 1;
        };
        const streamUrl = `${url}/v1/runs/${message.runId}/events`;
        try {
          return await follow({ url: streamUrl, agent, signal: deadline, onEvent, onOpen });
        } catch (error) {
          // A kept-alive socket the server closed as the request went out: nothing was received, and an
          // EventSource would connect again (the stream's `retry:`); so does this client, once, and says so.
          if (!(error instanceof NotConnectedError)) throw error;
          reconnects += 1;
          return await follow({ url: streamUrl, agent, signal: deadline, onEvent, onOpen });
        }
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
        failures.push(error instanceof Error ? `${error.message}${cause}` : String(error));
        return false;
      } finally {
        onOpen();
      }
    }),
  );
  await everyoneConnected;
  const connectedMs = performance.now() - startedAt;
  const clientDelay = monitorEventLoopDelay({ resolution: 10 });
  clientDelay.enable();
  const clientCpu = process.cpuUsage();
  const serverDelay =
    child === undefined ? undefined : ask(child, { type: 'release', spreadMs: startSpreadMs }, 'released');
  await serverDelay;
  const outcomes = await outcomesPromise;
  clientDelay.disable();
  const serverLoop = child === undefined ? undefined : await ask(child, { type: 'loop' }, 'loop');
  return {
    completed: outcomes.filter(Boolean).length,
    terminal,
    reconnects,
    latenciesMs,
    liveLatenciesMs,
    events,
    wallMs: performance.now() - startedAt,
    connectedMs,
    loadAverage,
    clientLoop: loopOf(clientDelay, process.cpuUsage(clientCpu)),
    serverLoop,
    failures,
  };
}

async function post(url: string, body: unknown, signal: AbortSignal): Promise<Record<string, string>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw new Error(`POST ${new URL(url).pathname} answered ${response.status}`);
  return (await response.json()) as Record<string, string>;
}

/** A stream request that failed before any response (a kept-alive socket closed under it). */
class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
}

/** Follows one run's stream to its end; true when its run:end came. */
function follow({
  url,
  agent,
  signal,
  onEvent,
  onOpen,
}: {
  url: string;
  agent: Agent;
  signal: AbortSignal;
  /** `connectedAt`: when the stream's first bytes arrived. */
  onEvent: (event: { type: string; at: number }, receivedAt: number, connectedAt: number) => void;
  /** The stream's first bytes arrived. */
  onOpen: () => void;
}): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const request = get(url, { agent, signal, headers: { authorization: `Bearer ${token}` } }, (response) => {
      responded = true;
      if (response.statusCode !== 200) {
        reject(new Error(`GET events answered ${response.statusCode}`));
        response.resume();
        return;
      }
      response.setEncoding('utf8');
      let connectedAt: number | undefined;
      let buffer = '';
      let ended = false;
      response.on('data', (chunk: string) => {
        const receivedAt = Date.now();
        if (connectedAt === undefined) {
          connectedAt = receivedAt;
          onOpen();
        }
        buffer += chunk;
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf('\n\n');
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          if (data === '') continue;
          const event = JSON.parse(data) as { type: string; at: number };
          onEvent(event, receivedAt, connectedAt);
          if (event.type === 'run:end' || event.type === 'run:error') ended = event.type === 'run:end';
        }
      });
      response.on('end', () => resolve(ended));
      response.on('error', reject);
    });
    // Before any response: the request never reached a server that answered it.
    request.on('error', (error) => reject(responded ? error : new NotConnectedError(error.message)));
  });
}

/** Whether the server still answers a new connection after a round, and how fast. */
function probe(url: string): Promise<string> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const request = get(`${url}/healthz`, { agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(`${response.statusCode} in ${Math.round(performance.now() - startedAt)} ms`));
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 10 s')));
    request.on('error', (error) => resolve(`failed: ${error.message}`));
  });
}

function waitFor<T>(child: ChildProcess, pick: (message: ChildMessage) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      const picked = pick(message);
      if (picked === undefined) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(picked);
    };
    const onExit = (code: number | null) => reject(new Error(`the bench server exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends `request` to the child and waits for its answer of type `answer`. */
function ask<Answer extends ChildMessage['type']>(
  child: ChildProcess,
  request: { type: string; spreadMs?: number },
  answer: Answer,
): Promise<Extract<ChildMessage, { type: Answer }> extends { loop: LoopDelay } ? LoopDelay : undefined> {
  const answered = waitFor(child, (message) =>
    message.type === answer ? { value: 'loop' in message ? message.loop : undefined } : undefined,
  );
  child.send(request);
  return answered.then(({ value }) => value) as never;
}

function loopOf(histogram: IntervalHistogram, cpu: NodeJS.CpuUsage): LoopDelay {
  const milliseconds = (nanoseconds: number) => Math.round(nanoseconds / 1e5) / 10;
  return {
    p50: milliseconds(histogram.percentile(50)),
    p99: milliseconds(histogram.percentile(99)),
    max: milliseconds(histogram.max),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
}

function memoryOf(child: ChildProcess): Promise<Memory> {
  const answer = waitFor(child, (message) => (message.type === 'memory' ? message.memory : undefined));
  child.send({ type: 'memory' });
  return answer;
}

function percentile(values: readonly number[], rank: number): string {
  return values.length === 0 ? 'n/a' : String(percentileOf(values, rank));
}

function percentileOf(values: readonly number[], rank: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

function formatLoop(loop: LoopDelay | undefined): string {
  return loop === undefined ? 'n/a' : `${loop.p50}/${loop.p99}/${loop.max} ms (cpu ${loop.cpuMs} ms)`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The child: the server, with a token for the clients, answering memory questions after a GC. */
async function serveForBench(dataDir: string): Promise<void> {
  const { startServer } = await import('../src/server/start-server.js');
  const { loadDefaultDomain } = await import('../src/server/default-domain.js');
  const shop = await loadDefaultDomain();
  const streamingDelay = { firstTokenMs: 40, deltaMs: 5 };
  // While a round's clients connect, every model call waits here: their runs have begun (run:start),
  // and produce the rest only once every stream is open, so what the clients receive is live.
  let holding = false;
  let waiting: (() => void)[] = [];
  const held = (model: Model): Model => ({
    name: model.name,
    async generate(request) {
      if (holding) await new Promise<void>((resolve) => waiting.push(resolve));
      return model.generate(request);
    },
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let cpuAtRelease = process.cpuUsage();
  const running = await startServer({
    model: (locale) => held(shop.chatModel({ locale, delay: streamingDelay })),
    port: 0,
    dataDir,
    auth: { tokens: [{ token, tenantId: 'bench', userId: 'C1001', roles: ['customer'] }] },
    // Every client is the same principal on purpose: the per-user limits would measure themselves.
    principalLimits: {
      maxStreams: Number.POSITIVE_INFINITY,
      sessionsPerMinute: Number.POSITIVE_INFINITY,
      messagesPerMinute: Number.POSITIVE_INFINITY,
    },
    heartbeatMs: 5_000,
    shutdownGraceMs: 0,
    onError: (error) => console.error('bench server:', error),
  });
  const collect = (globalThis as { gc?: () => void }).gc;
  process.on('message', (message: { type: string }) => {
    if (message.type === 'hold') {
      holding = true;
      process.send?.({ type: 'held' });
      return;
    }
    if (message.type === 'release') {
      delay.reset();
      delay.enable();
      cpuAtRelease = process.cpuUsage();
      if (process.env.SSE_MARK) console.error(`release at ${process.hrtime.bigint() / 1000n}`);
      holding = false;
      // Each held run goes on at its own moment within the spread, as people send their messages
      // independently (uniformly at random: bunches and gaps as in real traffic); 0 releases all at once.
      const { spreadMs } = message as { spreadMs?: number };
      for (const resume of waiting) setTimeout(resume, Math.random() * (spreadMs ?? 0));
      waiting = [];
      process.send?.({ type: 'released' });
      return;
    }
    if (message.type === 'loop') {
      delay.disable();
      if (process.env.SSE_MARK) console.error(`done at ${process.hrtime.bigint() / 1000n}`);
      process.send?.({ type: 'loop', loop: loopOf(delay, process.cpuUsage(cpuAtRelease)) });
      return;
    }
    if (message.type !== 'memory') return;
    collect?.();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ type: 'memory', memory: { rss, heapUsed, maxRss: process.resourceUsage().maxRSS * 1024 } });
  });
  process.once('SIGTERM', () => {
    running.close().finally(() => process.exit(0));
  });
  process.send?.({ type: 'ready', url: running.url });
}

if (isMainModule(import.meta.url)) {
  const serveAt = process.argv.indexOf('--serve-for-bench');
  if (serveAt >= 0) {
    await serveForBench(process.argv[serveAt + 1] ?? tmpdir());
  } else {
    const { lines, ratios, targets } = await runSseBench();
    console.log(lines.join('\n'));
    console.log(JSON.stringify({ ratios, targets }));
  }
}
