/**
 * `npm run bench -- session`: what one-message sessions cost on PostgreSQL,
 * end to end, as a client runs them: create the session over HTTP, post one
 * message (the scripted model calls one read tool, then answers), follow
 * the run's SSE stream to its `run:end`. Real nodes (the compiled CLI) on a
 * throwaway cluster this bench starts (`initdb`/`pg_ctl`, as the tests do),
 * a fresh database per round; each node first serves `warmUp` such
 * sessions, then the measured sessions are spread round-robin over the
 * nodes (each session's three requests on one node), `concurrency` at a time.
 *
 * Per session, counted over the measured window:
 * - transactions: PostgreSQL's own count for the database (pg_stat_database
 *   `xact_commit + xact_rollback` deltas; a statement outside a transaction
 *   counts as one), the nodes' background work in the window included;
 * - PostgreSQL CPU: utime + stime from /proc/PID/stat of the postmaster and
 *   every process it started (the backends, the writers);
 * - node CPU: utime + stime of the node processes (what `process.cpuUsage`
 *   of each reports, read from outside).
 * Targets: <= 12 transactions and <= 5 ms of PostgreSQL CPU per session on
 * one node; node CPU per session 3 nodes ÷ 1 node <= 1.15; three idle nodes
 * <= 0.5% of a core each. Rounds alternate 1 node and 3 nodes; medians.
 *
 * Then one session alone on one warm node with `log_statement = all`: every
 * transaction it caused, in order, with its statements (`--list` prints
 * them all; otherwise the count and the shapes).
 *
 * Environment: ARBITER_BENCH_SESSIONS (200), ARBITER_BENCH_WARM_UP_RUNS
 * (150), ARBITER_BENCH_ROUNDS (3), ARBITER_BENCH_CONCURRENCY (20),
 * ARBITER_BENCH_IDLE (1; 0 skips the 30 s idle measure).
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { PostgresCluster } from '../src/store/postgres/test-support/start-postgres-cluster.js';
import { statementShape } from '../src/store/postgres/transaction-counts.js';
import {
  type BenchNode,
  call,
  cpuSnapshot,
  databaseWork,
  followToEnd,
  idleRound,
  onThrowawayCluster,
  prepareRound,
  readStat,
  safeReaddir,
  startNode,
  tokenOf,
} from './cluster-bench.js';
import { type BenchResult, isMainModule, type Target, target } from './measure.js';

const sessions = Number(process.env.ARBITER_BENCH_SESSIONS ?? 200);
const warmUp = Number(process.env.ARBITER_BENCH_WARM_UP_RUNS ?? 150);
const rounds = Number(process.env.ARBITER_BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.ARBITER_BENCH_CONCURRENCY ?? 20);
const measureIdle = process.env.ARBITER_BENCH_IDLE !== '0';

interface SessionRound {
  readonly nodeCount: number;
  readonly completed: number;
  readonly seconds: number;
  readonly transactions: number;
  readonly postgresCpu: number;
  /** PostgreSQL CPU seconds by process kind (client backends, walwriter, autovacuum…). */
  readonly postgresByKind: Record<string, number>;
  readonly nodeCpu: readonly number[];
  readonly failures: readonly string[];
  /** The statements of the window by calls (pg_stat_statements): calls, ms, text. */
  readonly statements: readonly { query: string; calls: number; milliseconds: number }[];
}

/** One session as a client runs it; answers the run's stop reason or what went wrong. */
async function oneSession(node: BenchNode, token: string): Promise<string> {
  try {
    const session = await call(node, token, '/v1/sessions', 'POST');
    const sent = await call(node, token, `/v1/sessions/${session.id as string}/messages`, 'POST', {
      content: 'Where is my order?',
    });
    return await followToEnd(node, token, sent.runId as string);
  } catch (error) {
    return `failed: ${String(error)}`;
  }
}

/** Runs `work(index)` for 0..count-1, at most `limit` at a time. */
async function inParallel<Value>(
  count: number,
  limit: number,
  work: (index: number) => Promise<Value>,
): Promise<Value[]> {
  const results: Value[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        results[index] = await work(index);
      }
    }),
  );
  return results;
}

/** xact_commit + xact_rollback of database `name` (read on a connection of its own, to the cluster's database). */
async function transactionsOf(cluster: PostgresCluster, name: string): Promise<number> {
  const client = new pg.Client({ connectionString: cluster.connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      'SELECT xact_commit + xact_rollback AS count FROM pg_stat_database WHERE datname = $1',
      [name],
    );
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

function postmasterOf(cluster: PostgresCluster): number {
  return Number(readFileSync(join(cluster.directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

async function startNodes(storeUrl: string, directory: string, count: number, prefix: string): Promise<BenchNode[]> {
  const nodes: BenchNode[] = [];
  // One after another: the first creates the schema.
  for (let index = 0; index < count; index += 1)
    nodes.push(await startNode(directory, storeUrl, `${prefix}-${index + 1}`));
  return nodes;
}

async function stopNodes(nodes: readonly BenchNode[], directory: string): Promise<void> {
  for (const node of nodes) node.child.kill('SIGTERM');
  await Promise.all(nodes.map((node) => node.exited));
  rmSync(directory, { recursive: true, force: true });
}

async function warm(nodes: readonly BenchNode[]): Promise<void> {
  await Promise.all(
    nodes.map((node) => inParallel(warmUp, concurrency, (index) => oneSession(node, tokenOf(index % 300)))),
  );
}

async function sessionRound(cluster: PostgresCluster, nodeCount: number, index: number): Promise<SessionRound> {
  const name = `session_nodes_${nodeCount}_${index}`;
  const { storeUrl, directory } = await prepareRound(cluster, name);
  const nodes = await startNodes(storeUrl, directory, nodeCount, 'session-node');
  try {
    await warm(nodes);
    // Settled: the warm-up's batches written, its streams closed, the statistics flushed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const postmaster = postmasterOf(cluster);
    await databaseWork(storeUrl, name, { reset: true });
    const transactionsBefore = await transactionsOf(cluster, name);
    const cpuBefore = cpuSnapshot(nodes, postmaster);
    const kindsBefore = postgresCpuByKind(postmaster);
    const started = performance.now();
    const outcomes = await inParallel(sessions, concurrency, (session) =>
      oneSession(nodes[session % nodes.length] as BenchNode, tokenOf(session % 300)),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSnapshot(nodes, postmaster);
    const kindsAfter = postgresCpuByKind(postmaster);
    // A backend reports its counts when it goes idle, at most every 500 ms.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const transactionsAfter = await transactionsOf(cluster, name);
    const work = await databaseWork(storeUrl, name, { reset: false });
    return {
      nodeCount,
      completed: outcomes.filter((outcome) => outcome === 'completed').length,
      seconds,
      transactions: transactionsAfter - transactionsBefore,
      postgresCpu: cpuAfter.postgres - cpuBefore.postgres,
      postgresByKind: Object.fromEntries(
        [...kindsAfter].map(([kind, seconds]) => [kind, seconds - (kindsBefore.get(kind) ?? 0)]),
      ),
      nodeCpu: cpuAfter.nodes.map((value, node) => value - (cpuBefore.nodes[node] ?? 0)),
      failures: outcomes.filter((outcome) => outcome !== 'completed'),
      statements: work.statements,
    };
  } finally {
    await stopNodes(nodes, directory);
  }
}

/**
 * CPU seconds so far of the postmaster and each process it started, by
 * kind: `client backend` for connections, else the process title's name
 * (`walwriter`, `autovacuum launcher`, …). A backend that exited is gone
 * from the sum, so connections should outlive the window.
 */
function postgresCpuByKind(postmaster: number): Map<string, number> {
  const kinds = new Map<string, number>([['postmaster', readStat(postmaster)?.cpu ?? 0]]);
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat === undefined || stat.parent !== postmaster) continue;
    let title = '';
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    const kind = /^postgres: \S+ \S+ [\d.]+\(\d+\)/.test(title)
      ? 'client backend'
      : title.replace(/^postgres: /, '').replace(/\s+(idle|active).*$/, '');
    kinds.set(kind, (kinds.get(kind) ?? 0) + stat.cpu);
  }
  return kinds;
}

/** One transaction of the listed session: the backend that ran it and its statements, in order. */
interface ListedTransaction {
  readonly backend: number;
  readonly statements: string[];
}

/**
 * One session alone on one warm node, with every statement logged
 * (`log_statement = all`, switched on by a reload): its transactions in
 * the order they began, each with its statements.
 */
async function listOneSession(cluster: PostgresCluster): Promise<ListedTransaction[]> {
  const name = 'session_listed';
  const { storeUrl, directory } = await prepareRound(cluster, name);
  const nodes = await startNodes(storeUrl, directory, 1, 'listed-node');
  const admin = new pg.Client({ connectionString: cluster.connectionString });
  await admin.connect();
  const log = join(cluster.directory, 'server.log');
  try {
    for (let index = 0; index < 20; index += 1) await oneSession(nodes[0] as BenchNode, tokenOf(index));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const offset = statSync(log).size;
    await admin.query("ALTER SYSTEM SET log_statement = 'all'");
    await admin.query('SELECT pg_reload_conf()');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const outcome = await oneSession(nodes[0] as BenchNode, tokenOf(42));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await admin.query('ALTER SYSTEM RESET log_statement');
    await admin.query('SELECT pg_reload_conf()');
    if (outcome !== 'completed') throw new Error(`the listed session ended ${outcome}`);
    const text = readFileSync(log, 'utf8').slice(offset);
    return transactionsInLog(text, name);
  } finally {
    await admin.end();
    await stopNodes(nodes, directory);
  }
}

/**
 * The transactions in a server log written with `log_line_prefix = '[%p] %d '`:
 * a `BEGIN` opens one on its backend until `COMMIT`/`ROLLBACK`, any other
 * statement outside is one on its own.
 */
function transactionsInLog(text: string, database: string): ListedTransaction[] {
  const open = new Map<number, ListedTransaction>();
  const listed: ListedTransaction[] = [];
  const pattern = /^\[(\d+)\] (\S+) LOG: {2}(statement|execute [^:]*): ([\s\S]*?)(?=^\[\d+\] |(?![\s\S]))/gm;
  for (const match of text.matchAll(pattern)) {
    const [, pid = '0', db = '', how = '', statement = ''] = match;
    if (db !== database) continue;
    const backend = Number(pid);
    const sql = `${statement.replace(/\s+/g, ' ').trim()}${how.startsWith('execute arbiter_') ? ' [prepared]' : ''}`;
    const verb = sql.split(' ')[0]?.toUpperCase() ?? '';
    const current = open.get(backend);
    if (verb === 'BEGIN') {
      const opened = { backend, statements: [sql] };
      open.set(backend, opened);
      listed.push(opened);
    } else if (current !== undefined) {
      current.statements.push(sql);
      if (verb === 'COMMIT' || verb === 'ROLLBACK') open.delete(backend);
    } else {
      listed.push({ backend, statements: [sql] });
    }
  }
  return listed;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function runSessionBench(): Promise<BenchResult> {
  return onThrowawayCluster(
    'session',
    async (cluster) => {
      const ones: SessionRound[] = [];
      const threes: SessionRound[] = [];
      for (let index = 0; index < rounds; index += 1) {
        ones.push(await sessionRound(cluster, 1, index));
        threes.push(await sessionRound(cluster, 3, index));
      }
      const perSession = (value: (round: SessionRound) => number) => (round: SessionRound) =>
        value(round) / Math.max(1, round.completed);
      const transactions = perSession((round) => round.transactions);
      const postgresMs = perSession((round) => round.postgresCpu * 1000);
      const nodeMs = perSession((round) => round.nodeCpu.reduce((sum, value) => sum + value, 0) * 1000);
      const nodeOne = median(ones.map(nodeMs));
      const nodeThree = median(threes.map(nodeMs));
      const targets: Target[] = [
        target({
          id: 'session_transactions_one_node',
          description: 'transactions per one-message session, 1 node',
          value: median(ones.map(transactions)),
          comparison: '<=',
          limit: 12,
        }),
        target({
          id: 'session_postgres_cpu_ms_one_node',
          description: 'PostgreSQL CPU per one-message session, 1 node, ms',
          value: median(ones.map(postgresMs)),
          comparison: '<=',
          limit: 5,
        }),
        target({
          id: 'session_node_cpu_three_vs_one',
          description: 'node CPU per session, 3 nodes / 1 node',
          value: nodeThree / nodeOne,
          comparison: '<=',
          limit: 1.15,
        }),
      ];
      const listed = await listOneSession(cluster);
      const idle = measureIdle ? await idleRound(cluster) : undefined;
      if (idle !== undefined)
        targets.push(
          target({
            id: 'session_idle_cpu_per_node',
            description: 'CPU of each of 3 idle nodes over 30 s, % of a core',
            value: idle.percentPerNode,
            comparison: '<=',
            limit: 0.5,
          }),
        );
      const row = (label: string, results: readonly SessionRound[]) =>
        `  ${label}: transactions ${median(results.map(transactions)).toFixed(1)}, PostgreSQL CPU ` +
        `${median(results.map(postgresMs)).toFixed(2)} ms, node CPU ${median(results.map(nodeMs)).toFixed(2)} ms per session ` +
        `(rounds: ${results
          .map(
            (round) =>
              `${transactions(round).toFixed(1)} tx / ${postgresMs(round).toFixed(2)} / ${nodeMs(round).toFixed(2)} ms, ` +
              `${round.completed}/${sessions} in ${round.seconds.toFixed(1)} s`,
          )
          .join('; ')})`;
      const shapes = new Map<string, number>();
      for (const entry of listed) {
        const work = entry.statements
          .map((statement) => statementShape(statement))
          .filter((shape, index, all) => shape !== all[index - 1])
          .join('; ');
        shapes.set(work, (shapes.get(work) ?? 0) + 1);
      }
      const lines = [
        `session: ${sessions} one-message sessions per round (create, post with one read tool call, follow SSE to ` +
          `run:end), ${concurrency} at a time, scripted model 50 ms a call, ${warmUp} warm-up sessions per node; ` +
          `real nodes on one PostgreSQL; medians of ${rounds} rounds`,
        row('1 node ', ones),
        row('3 nodes', threes),
        ...[ones[0], threes[0]]
          .flatMap((round) => (round === undefined ? [] : [round]))
          .map(
            (round) =>
              `  PostgreSQL CPU by process, ${round.nodeCount} node(s), first round, ms per session: ` +
              Object.entries(round.postgresByKind)
                .filter(([, seconds]) => seconds > 0)
                .sort((left, right) => right[1] - left[1])
                .map(([kind, seconds]) => `${kind} ${((seconds * 1000) / Math.max(1, round.completed)).toFixed(2)}`)
                .join(', '),
          ),
        ...[ones[0], threes[0]]
          .flatMap((round) => (round === undefined ? [] : [round]))
          .flatMap((round) => [
            `  statements per session, ${round.nodeCount} node(s), first round (calls, PostgreSQL ms, statement):`,
            ...round.statements
              .slice(0, process.argv.includes('--list') ? 40 : 12)
              .map(
                (statement) =>
                  `    ${(statement.calls / Math.max(1, round.completed)).toFixed(2).padStart(6)} ` +
                  `${(statement.milliseconds / Math.max(1, round.completed)).toFixed(3).padStart(7)}  ${statement.query.slice(0, 110)}`,
              ),
          ]),
        `  node CPU per session 3 nodes / 1 node: ${(nodeThree / nodeOne).toFixed(2)}`,
        ...(idle === undefined
          ? []
          : [
              `  idle: 3 nodes over 30 s, ${idle.percentPerNode.toFixed(2)}% of a core per node, ` +
                `${idle.transactions} transactions, PostgreSQL ${idle.postgres.toFixed(2)} CPU s`,
            ]),
        `  one session alone on a warm node (log_statement = all): ${listed.length} transactions`,
        ...[...shapes.entries()].map(([work, count]) => `    ${String(count).padStart(2)} × ${work}`),
        ...(process.argv.includes('--list')
          ? listed.flatMap((entry, index) => [
              `    transaction ${index + 1} (backend ${entry.backend}):`,
              ...entry.statements.map((statement) => `      ${statement.slice(0, 400)}`),
            ])
          : []),
        ...targets.map(
          (entry) =>
            `  ${entry.description}: ${entry.value.toFixed(2)} (target ${entry.comparison} ${entry.limit}) ` +
            `${entry.met ? 'MET' : 'MISSED'}`,
        ),
        ...[...ones, ...threes]
          .flatMap((round) => round.failures)
          .slice(0, 3)
          .map((failure) => `    failure: ${failure}`),
      ];
      return {
        lines,
        ratios: Object.fromEntries(targets.map((entry) => [`session.${entry.id}`, entry.value])),
        targets,
        figures: { ones, threes, idle, listed },
      };
    },
    ["log_line_prefix = '[%p] %d '"],
  );
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runSessionBench();
  console.log(lines.join('\n'));
}
