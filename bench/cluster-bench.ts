/**
 * Throughput of `arbiter serve --store postgres://…` on one node and on
 * three: 300 sessions, each of its own customer, each sending one message at
 * once (an order question: a read tool, then an answer), against the offline
 * scripted model taking 50 ms per call (`ARBITER_SCRIPTED_LATENCY_MS`). One
 * customer per session because one customer's concurrent messages queue on
 * the advisory lock of his per-principal limits (measured: with all 300 as one
 * customer, pg_stat_activity showed that lock as the only wait). The nodes are
 * real processes (the compiled CLI) on one throwaway PostgreSQL cluster, a
 * fresh database per configuration; the clients (this process) spread the
 * sessions round-robin over the nodes and follow each run over SSE on the
 * node that took its message.
 *
 * Runs per second: 300 / (first message POST → last `run:end` received).
 * Target: three nodes >= 2.5× one node. On a small machine every node, the
 * database and the clients share the same cores, so the CPU each used during
 * the measured window (from /proc) is printed with the figures, and the
 * database's connections (pg_stat_activity, sampled) with their top waits.
 * Three rounds of each, alternated; the median round of each is compared.
 * Each node serves 300 runs before the window (warm). Also printed: the
 * nodes' CPU per run, 3 nodes / 1 node (target <= 1.15: what coordinating
 * costs, the figure that tells whether more cores would scale), and the CPU
 * of three idle nodes over 30 s (target <= 0.5% of a core per node).
 *
 * Skipped, with a line, when PostgreSQL's server binaries are not found
 * (`ARBITER_POSTGRES_BINDIR`, `pg_config`, /usr/lib/postgresql).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { requestJson } from '../src/server/test-support/request-json.js';
import {
  findPostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from '../src/store/postgres/test-support/start-postgres-cluster.js';
import { type BenchResult, isMainModule, type Target, target } from './measure.js';

const sessions = 300;
const modelLatencyMs = 50;
const rounds = 3;
/**
 * Runs each node serves before the measured window, as many as the window
 * holds: with 20, one node was measured over its runs 21 to 320 and each of
 * three over its runs 21 to 120, still compiling (node CPU per run 3 ÷ 1:
 * 1.47 with 20, 1.25 with 150, on the same day).
 */
const warmUpRuns = Number(process.env.ARBITER_BENCH_WARM_UP_RUNS ?? sessions);
/** How long the three idle nodes are measured. */
const idleSeconds = 30;
/** One customer per session: one customer's concurrent messages queue on his per-principal limit's lock. */
export const tokenOf = (index: number) => `bench-token-${String(index).padStart(4, '0')}-0123456789abcdef`;
/** The node's CLI: this build's, or another build's (`ARBITER_BENCH_CLI=/path/to/dist/src/cli/main.js`). */
const cli =
  process.env.ARBITER_BENCH_CLI ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
const plainServer = join(dirname(fileURLToPath(import.meta.url)), 'plain-session-server.js');
const clockTicks = 100;
/**
 * Extra arguments for the nodes' `node` (not the bench's), from
 * `ARBITER_BENCH_NODE_ARGS`, space-separated: `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * profiles each node (NODE_OPTIONS does not take `--cpu-prof`).
 */
const nodeArguments = (process.env.ARBITER_BENCH_NODE_ARGS ?? '').split(' ').filter((argument) => argument !== '');
const metricsToken = 'bench-metrics-token-0123456789abcdef';
/**
 * `ARBITER_BENCH_CALLGRIND`, a folder: the nodes then run under valgrind's callgrind, counting nothing until
 * `startCounting` and dumping at `stopCounting`, so a window's instructions per session (all of a node's threads)
 * are read beside its CPU seconds: a count that does not depend on how busy the machine's cores are.
 */
const callgrindFolder = process.env.ARBITER_BENCH_CALLGRIND;

export interface BenchNode {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

interface Round {
  readonly runsPerSecond: number;
  readonly seconds: number;
  readonly completed: number;
  readonly failures: string[];
  /** CPU seconds during the measured window: each node, PostgreSQL (all its processes), the clients. */
  readonly cpu: { nodes: number[]; postgres: number; clients: number };
  /** pg_stat_activity sampled every 50 ms: the mean of the nodes' connections in each state, and the top waits. */
  readonly activity: { connections: Record<string, number>; waits: string[] };
  /** What the nodes asked of the database in the window (`databaseWork`). */
  readonly database: DatabaseWork;
  /** The transactions the nodes committed in the window, by what each did (their `/metrics`). */
  readonly transactions: Map<string, number>;
}

/** One statement as pg_stat_statements normalises it, with how often it ran and the time it took. */
interface StatementWork {
  readonly query: string;
  readonly calls: number;
  readonly milliseconds: number;
}

/**
 * The nodes' work on a round's database over a window: transactions
 * committed (pg_stat_database `xact_commit`; a statement outside a
 * transaction counts as one), rows read (`tup_returned + tup_fetched`), and
 * the statements by calls (pg_stat_statements; `BEGIN`/`COMMIT` included).
 */
export interface DatabaseWork {
  readonly transactions: number;
  readonly rowsRead: number;
  readonly statements: StatementWork[];
}

/**
 * Runs `measure` on a throwaway PostgreSQL cluster, stopped afterwards; a
 * bench named `name` is skipped, and says why, where the server binaries are
 * not found.
 */
export async function onThrowawayCluster(
  name: string,
  measure: (cluster: PostgresCluster) => Promise<BenchResult>,
  settings: readonly string[] = [],
): Promise<BenchResult> {
  const binaries = findPostgresBinaries();
  if (binaries === undefined) {
    return {
      lines: [`${name}: skipped, PostgreSQL server binaries not found (set ARBITER_POSTGRES_BINDIR)`],
      ratios: {},
    };
  }
  // pg_stat_statements: what the statements of a run are, and how often each runs.
  const cluster = await startPostgresCluster({
    binaries,
    settings: ["shared_preload_libraries = 'pg_stat_statements'", 'pg_stat_statements.track_utility = on', ...settings],
  });
  try {
    return await measure(cluster);
  } finally {
    await cluster.stop();
  }
}

/** Samples the database's connections (their state and wait event) until `stop`. */
function sampleActivity(
  storeUrl: string,
  database: string,
): { stop: () => Promise<{ connections: Record<string, number>; waits: string[] }> } {
  const client = new pg.Client({ connectionString: storeUrl });
  const states = new Map<string, number>();
  const waits = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ state: string | null; wait: string | null; query: string }>(
        `SELECT state, wait_event_type || ':' || wait_event AS wait, left(query, 50) AS query
           FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        [database],
      );
      samples += 1;
      for (const row of rows) {
        const state = row.state ?? 'unknown';
        states.set(state, (states.get(state) ?? 0) + 1);
        if (state === 'active' && row.wait !== null && row.wait !== 'Client:ClientRead') {
          const key = `${row.wait} ${row.query.replace(/\s+/g, ' ')}`;
          waits.set(key, (waits.get(key) ?? 0) + 1);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const connections: Record<string, number> = {};
      for (const [state, count] of states) connections[state] = Number((count / Math.max(1, samples)).toFixed(1));
      const top = [...waits.entries()]
        .sort((left, right) => right[1] - left[1])
        .slice(0, 3)
        .map(([key, count]) => `${(count / Math.max(1, samples)).toFixed(1)} × ${key}`);
      return { connections, waits: top };
    },
  };
}

export function runClusterBench(): Promise<BenchResult> {
  return onThrowawayCluster('cluster', async (cluster) => {
    // Alternated, the median of each kept: the shared cores make a single round noisy.
    const ones: Round[] = [];
    const threes: Round[] = [];
    for (let index = 0; index < rounds; index += 1) {
      ones.push(await round(cluster, 1, index));
      threes.push(await round(cluster, 3, index));
    }
    const one = medianRound(ones);
    const three = medianRound(threes);
    const ratio = three.runsPerSecond / one.runsPerSecond;
    const cpuPerRunOne = median(ones.map(nodeCpuPerRun));
    const cpuPerRunThree = median(threes.map(nodeCpuPerRun));
    const cpuRatio = cpuPerRunThree / cpuPerRunOne;
    const cpuVerdict: Target = target({
      id: 'cluster_node_cpu_per_run_three_vs_one',
      description: 'node CPU per run, 3 nodes / 1 node (the cost of coordination)',
      value: cpuRatio,
      comparison: '<=',
      limit: 1.15,
    });
    const postgresPerRun = (result: Round) => result.cpu.postgres / Math.max(1, result.completed);
    const transactionsPerRun = (result: Round) =>
      [...result.transactions.values()].reduce((sum, count) => sum + count, 0) / Math.max(1, result.completed);
    const databaseTargets = (
      [
        ['1 node', ones],
        ['3 nodes', threes],
      ] as const
    ).flatMap(([label, results]) => [
      target({
        id: `cluster_postgres_cpu_ms_per_run_${label.replace(' ', '_')}`,
        description: `PostgreSQL CPU per run, ${label}, ms (median round)`,
        value: median(results.map(postgresPerRun)) * 1000,
        comparison: '<=',
        limit: 5,
      }),
      target({
        id: `cluster_transactions_per_run_${label.replace(' ', '_')}`,
        description: `transactions per run, ${label} (median round)`,
        value: median(results.map(transactionsPerRun)),
        comparison: '<=',
        limit: 12,
      }),
    ]);
    const idle = await idleRound(cluster);
    const idleVerdict: Target = target({
      id: 'cluster_idle_cpu_per_node',
      description: `CPU of each of 3 idle nodes over ${idleSeconds} s, % of a core`,
      value: idle.percentPerNode,
      comparison: '<=',
      limit: 0.5,
    });
    const verdict: Target = target({
      id: 'cluster_three_nodes_vs_one',
      description: `runs/s of 3 nodes / 1 node on one PostgreSQL (${sessions} sessions, model ${modelLatencyMs} ms a call)`,
      value: ratio,
      comparison: '>=',
      limit: 2.5,
    });
    const describe = (name: string, result: Round) =>
      `  ${name}: ${result.runsPerSecond.toFixed(1)} runs/s (${result.completed}/${sessions} completed in ` +
      `${result.seconds.toFixed(2)} s); CPU s: nodes ${result.cpu.nodes.map((value) => value.toFixed(1)).join(' + ')}, ` +
      `PostgreSQL ${result.cpu.postgres.toFixed(1)}, clients ${result.cpu.clients.toFixed(1)} ` +
      `(${((result.cpu.nodes.reduce((sum, value) => sum + value, 0) + result.cpu.postgres + result.cpu.clients) / result.seconds).toFixed(2)} cores busy)\n` +
      `    connections (mean): ${JSON.stringify(result.activity.connections)}; top waits: ${result.activity.waits.join('; ') || 'none'}`;
    const lines = [
      `cluster: ${sessions} sessions × 1 message (one customer each), scripted model ${modelLatencyMs} ms a call, ` +
        `${warmUpRuns} warm-up runs per node, ` +
        `real nodes on one PostgreSQL; median of ${rounds} rounds (runs/s 1 node ` +
        `${ones.map((entry) => entry.runsPerSecond.toFixed(1)).join(', ')}; 3 nodes ` +
        `${threes.map((entry) => entry.runsPerSecond.toFixed(1)).join(', ')})`,
      describe('1 node ', one),
      describe('3 nodes', three),
      `  3 nodes / 1 node: ${ratio.toFixed(2)} (target >= 2.50) ${verdict.met ? 'MET' : 'MISSED'}`,
      `  node CPU per run: 1 node ${(cpuPerRunOne * 1000).toFixed(1)} ms, 3 nodes ${(cpuPerRunThree * 1000).toFixed(1)} ms ` +
        `(medians; rounds ${ones.map((entry) => (nodeCpuPerRun(entry) * 1000).toFixed(1)).join(', ')} / ` +
        `${threes.map((entry) => (nodeCpuPerRun(entry) * 1000).toFixed(1)).join(', ')}): 3 nodes / 1 node ` +
        `${cpuRatio.toFixed(2)} (target <= 1.15) ${cpuVerdict.met ? 'MET' : 'MISSED'}`,
      `  idle: 3 nodes over ${idleSeconds} s used ${idle.nodes.map((value) => value.toFixed(2)).join(' + ')} CPU s, ` +
        `${idle.percentPerNode.toFixed(2)}% of a core per node (target <= 0.50%) ${idleVerdict.met ? 'MET' : 'MISSED'}; ` +
        `PostgreSQL ${idle.postgres.toFixed(2)} CPU s, ${idle.transactions} transactions from the nodes`,
      ...(
        [
          ['1 node ', ones, one],
          ['3 nodes', threes, three],
        ] as const
      ).flatMap(([label, results, middle]) => [
        `  database, ${label}: PostgreSQL CPU per run ${(median(results.map(postgresPerRun)) * 1000).toFixed(1)} ms ` +
          `(target <= 5.0; rounds ${results.map((entry) => (postgresPerRun(entry) * 1000).toFixed(1)).join(', ')}), ` +
          `transactions per run ${median(results.map(transactionsPerRun)).toFixed(1)} (target <= 12; rounds ` +
          `${results.map((entry) => transactionsPerRun(entry).toFixed(1)).join(', ')}; PostgreSQL's own count ` +
          `${(middle.database.transactions / Math.max(1, middle.completed)).toFixed(1)}), rows read per run ` +
          `${(middle.database.rowsRead / Math.max(1, middle.completed)).toFixed(0)}`,
        `    transactions per run of the median round, by what each did (the nodes' /metrics):`,
        ...transactionsPerRunByWork(middle),
        `    statements per run of the median round (calls, PostgreSQL time, statement; pg_stat_statements):`,
        ...statementsPerRun(middle, 12),
      ]),
      ...databaseTargets.map(
        (entry) => `  ${entry.description}: ${entry.value.toFixed(1)} ${entry.met ? 'MET' : 'MISSED'}`,
      ),
      ...[...one.failures, ...three.failures].slice(0, 3).map((failure) => `    failure: ${failure}`),
    ];
    return {
      lines,
      ratios: {
        'cluster.three_vs_one': ratio,
        'cluster.postgres_cpu_ms_per_run_one': median(ones.map(postgresPerRun)) * 1000,
        'cluster.postgres_cpu_ms_per_run_three': median(threes.map(postgresPerRun)) * 1000,
        'cluster.transactions_per_run_one': median(ones.map(transactionsPerRun)),
        'cluster.transactions_per_run_three': median(threes.map(transactionsPerRun)),
        'cluster.node_cpu_per_run_three_vs_one': cpuRatio,
        'cluster.idle_cpu_percent_per_node': idle.percentPerNode,
      },
      targets: [verdict, cpuVerdict, idleVerdict, ...databaseTargets],
      figures: { ones, threes, idle },
    };
  });
}

/**
 * `npm run bench -- cluster-tenants`: the audit chain's cost of one tenant
 * across nodes. Three nodes serve the same 300 runs (each with one audited
 * call), once all of one tenant and once spread over three tenants,
 * alternated, three rounds each; the medians are compared. Before the
 * chain's second format every append of a tenant took that tenant's
 * advisory lock, so one tenant's audited calls were written one at a time
 * across all nodes; now each node writes its own chain of the tenant.
 * Target: one tenant >= 0.9 × three tenants.
 */
export function runClusterTenantsBench(): Promise<BenchResult> {
  return onThrowawayCluster('cluster-tenants', async (cluster) => {
    const ones: Round[] = [];
    const threes: Round[] = [];
    // Alternated, and which goes first alternates too: on a loaded machine the second of a pair may fare better.
    for (let index = 0; index < rounds; index += 1) {
      if (index % 2 === 0) ones.push(await round(cluster, 3, index, 1));
      threes.push(await round(cluster, 3, index, 3));
      if (index % 2 === 1) ones.push(await round(cluster, 3, index, 1));
    }
    const one = medianRound(ones);
    const three = medianRound(threes);
    const ratio = one.runsPerSecond / three.runsPerSecond;
    const verdict: Target = target({
      id: 'cluster_one_tenant_vs_three',
      description: `runs/s on 3 nodes, all of one tenant / spread over 3 tenants (${sessions} runs, one audited call each)`,
      value: ratio,
      comparison: '>=',
      limit: 0.9,
    });
    const describe = (name: string, result: Round) =>
      `  ${name}: ${result.runsPerSecond.toFixed(1)} runs/s (${result.completed}/${sessions} completed in ` +
      `${result.seconds.toFixed(2)} s); top waits: ${result.activity.waits.join('; ') || 'none'}`;
    return {
      lines: [
        `cluster-tenants: 3 nodes, ${sessions} sessions × 1 message, scripted model ${modelLatencyMs} ms a call; median of ` +
          `${rounds} rounds (runs/s one tenant ${ones.map((entry) => entry.runsPerSecond.toFixed(1)).join(', ')}; ` +
          `three tenants ${threes.map((entry) => entry.runsPerSecond.toFixed(1)).join(', ')})`,
        describe('1 tenant ', one),
        describe('3 tenants', three),
        `  1 tenant / 3 tenants: ${ratio.toFixed(2)} (target >= 0.90) ${verdict.met ? 'MET' : 'MISSED'}`,
        ...[...one.failures, ...three.failures].slice(0, 3).map((failure) => `    failure: ${failure}`),
      ],
      ratios: { 'cluster.one_tenant_vs_three': ratio },
      targets: [verdict],
      figures: { ones, threes },
    };
  });
}

/** The nodes' CPU seconds per completed run of a round. */
function nodeCpuPerRun(result: Round): number {
  return result.cpu.nodes.reduce((sum, value) => sum + value, 0) / Math.max(1, result.completed);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Three nodes that serve nothing for `idleSeconds` after a settling pause:
 * the CPU each uses then is the cost of coordination alone (lease renewals,
 * claims, listening), and the transactions they commit (pg_stat_database
 * `xact_commit`: a statement outside a transaction counts as one).
 */
export async function idleRound(
  cluster: PostgresCluster,
): Promise<{ nodes: number[]; percentPerNode: number; postgres: number; transactions: number }> {
  const { storeUrl, directory } = await prepareRound(cluster, 'bench_idle');
  const nodes: BenchNode[] = [];
  try {
    for (let index = 0; index < 3; index += 1)
      nodes.push(await startNode(directory, storeUrl, `idle-node-${index + 1}`));
    // A node's start-up work ends well after it listens: V8's memory reducer collects the heap the start-up
    // filled when the process goes idle (100-220 ms of CPU per node 10-18 s after the start, 2026-12-07), once.
    // The measure is of a node waiting for work, after that.
    await new Promise((resolve) => setTimeout(resolve, 25_000));
    const postmaster = Number(readFileSync(join(cluster.directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const commits = async () => {
      const client = new pg.Client({ connectionString: storeUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ commits: string }>(
          "SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = 'bench_idle'",
        );
        return Number(rows[0]?.commits ?? 0);
      } finally {
        await client.end();
      }
    };
    const commitsBefore = await commits();
    const before = cpuSnapshot(nodes, postmaster);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const after = cpuSnapshot(nodes, postmaster);
    // pg_stat_database is updated by each backend at most every 500 ms (and when it goes idle).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const transactions = (await commits()) - commitsBefore - 1;
    const used = after.nodes.map((value, index) => value - (before.nodes[index] ?? 0));
    const percentPerNode = (used.reduce((sum, value) => sum + value, 0) / nodes.length / idleSeconds) * 100;
    return { nodes: used, percentPerNode, postgres: after.postgres - before.postgres, transactions };
  } finally {
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * The database's counters now (`reset`: pg_stat_statements emptied first,
 * so that the statements read later are those of the window).
 */
export async function databaseWork(
  storeUrl: string,
  name: string,
  { reset }: { reset: boolean },
): Promise<DatabaseWork> {
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    if (reset) await client.query('SELECT pg_stat_statements_reset()');
    const counters = await client.query<{ commits: string; read: string }>(
      'SELECT xact_commit AS commits, tup_returned + tup_fetched AS read FROM pg_stat_database WHERE datname = $1',
      [name],
    );
    const statements = reset
      ? []
      : (
          await client.query<{ query: string; calls: string; milliseconds: number }>(
            `SELECT query, calls, total_exec_time AS milliseconds FROM pg_stat_statements
               WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
                 AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_database%'
               ORDER BY calls DESC`,
            [name],
          )
        ).rows.map((row) => ({
          query: row.query.replace(/\s+/g, ' ').trim(),
          calls: Number(row.calls),
          milliseconds: row.milliseconds,
        }));
    return {
      transactions: Number(counters.rows[0]?.commits ?? 0),
      rowsRead: Number(counters.rows[0]?.read ?? 0),
      statements,
    };
  } finally {
    await client.end();
  }
}

/** The transactions the nodes committed so far, by what each did, summed over the nodes (`GET /metrics`). */
async function nodeTransactions(nodes: readonly BenchNode[]): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  for (const node of nodes) {
    const response = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    const text = await response.text();
    for (const match of text.matchAll(/^arbiter_postgres_transactions_total\{work="([^"]*)"\} (\d+)$/gm)) {
      const [, work = '', count = '0'] = match;
      totals.set(work, (totals.get(work) ?? 0) + Number(count));
    }
  }
  return totals;
}

/**
 * One node's counters so far (`GET /metrics`): each transaction kind it
 * committed as `transactions: <work>` (`arbiter_postgres_transactions_total`)
 * and each kind of cluster work as `work: <work>` (`arbiter_cluster_work_total`).
 */
export async function nodeCounters(node: BenchNode): Promise<Map<string, number>> {
  const counters = new Map<string, number>();
  const response = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  const text = await response.text();
  for (const match of text.matchAll(/^arbiter_(postgres_transactions|cluster_work)_total\{work="([^"]*)"\} (\d+)$/gm)) {
    const [, metric = '', work = '', count = '0'] = match;
    counters.set(`${metric === 'cluster_work' ? 'work' : 'transactions'}: ${work}`, Number(count));
  }
  return counters;
}

/** The nodes' transactions of a round per completed run, most frequent first: `per run  what it did`. */
function transactionsPerRunByWork(result: Round): string[] {
  const runs = Math.max(1, result.completed);
  return [...result.transactions.entries()]
    .sort((left, right) => right[1] - left[1])
    .map(([work, count]) => `      ${(count / runs).toFixed(2).padStart(6)}  ${work}`);
}

/** The statements of a round per completed run, most frequent first: `calls/run  ms/run  statement`. */
function statementsPerRun(result: Round, limit: number): string[] {
  const runs = Math.max(1, result.completed);
  return result.database.statements
    .slice(0, limit)
    .map(
      (statement) =>
        `      ${(statement.calls / runs).toFixed(2).padStart(6)}  ${(statement.milliseconds / runs).toFixed(3).padStart(7)} ms  ` +
        statement.query.slice(0, 110),
    );
}

function medianRound(results: readonly Round[]): Round {
  const sorted = [...results].sort((left, right) => left.runsPerSecond - right.runsPerSecond);
  return sorted[Math.floor(sorted.length / 2)] as Round;
}

/** A fresh database `name` on the cluster, and a directory with the nodes' tokens, tools and script. */
export async function prepareRound(
  cluster: PostgresCluster,
  name: string,
  tenants = 1,
): Promise<{ storeUrl: string; directory: string }> {
  const admin = new pg.Client({ connectionString: cluster.connectionString });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const storeUrl = cluster.connectionString.replace(/\/postgres$/, `/${name}`);
  const owner = new pg.Client({ connectionString: storeUrl });
  await owner.connect();
  await owner.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await owner.end();
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-cluster-bench-'));
  writeFileSync(
    join(directory, 'auth.json'),
    JSON.stringify({
      tokens: Array.from({ length: sessions }, (_, user) => ({
        token: tokenOf(user),
        tenantId: tenants === 1 ? 'bench' : `bench-${user % tenants}`,
        userId: `U${user}`,
        roles: ['customer'],
      })),
    }),
  );
  // A read tool any customer may call, so each run is two model calls around one gated tool call.
  writeFileSync(
    join(directory, 'tools.mjs'),
    `export function createTools() {
      return [{
        name: 'order_status',
        description: 'The status of an order.',
        parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'The order' } },
          required: ['order_id'], additionalProperties: false },
        sideEffect: 'read',
        execute: async ({ order_id }) => ({ order_id, status: 'shipped' }),
      }];
    }`,
  );
  writeFileSync(
    join(directory, 'script.json'),
    JSON.stringify({
      name: 'bench-order',
      onRefusal: 'Sorry: {reason}',
      turns: [
        {
          steps: [
            { call: { name: 'order_status', arguments: { order_id: 'SO20260901' } } },
            { say: 'Your order {{order_status.order_id}} is {{order_status.status}}.' },
          ],
        },
      ],
    }),
  );
  return { storeUrl, directory };
}

async function round(cluster: PostgresCluster, nodeCount: number, index: number, tenants = 1): Promise<Round> {
  const name = `bench_nodes_${nodeCount}_${index}${tenants === 1 ? '' : `_tenants_${tenants}`}`;
  const { storeUrl, directory } = await prepareRound(cluster, name, tenants);
  const nodes: BenchNode[] = [];
  try {
    // Started one after another: the first creates the schema and the shop's database.
    for (let index = 0; index < nodeCount; index += 1) {
      nodes.push(await startNode(directory, storeUrl, `bench-node-${index + 1}`));
    }
    // Each node serves a few runs before the window, so it is measured warm (compiled code, filled pools):
    // three nodes would otherwise pay three warm-ups inside the window against one node's one.
    await Promise.all(
      nodes.flatMap((node) =>
        Array.from({ length: warmUpRuns }, async (_, index) => {
          const token = tokenOf(index);
          const session = await call(node, token, '/v1/sessions', 'POST');
          const sent = await call(node, token, `/v1/sessions/${session.id as string}/messages`, 'POST', {
            content: 'Where is my order?',
          });
          return followToEnd(node, token, sent.runId as string);
        }),
      ),
    );
    const created = await Promise.all(
      Array.from({ length: sessions }, async (_, index) => {
        const node = nodes[index % nodes.length] as BenchNode;
        const token = tokenOf(index);
        const response = await call(node, token, '/v1/sessions', 'POST');
        return { node, token, sessionId: response.id as string };
      }),
    );
    const postmaster = Number(readFileSync(join(cluster.directory, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const cpuBefore = cpuSnapshot(nodes, postmaster);
    const clientsBefore = process.cpuUsage();
    // From the cluster's own database, so that the sampler's queries are not counted as the nodes' work.
    const sampler = sampleActivity(cluster.connectionString, name);
    const workBefore = await databaseWork(storeUrl, name, { reset: true });
    const transactionsBefore = await nodeTransactions(nodes);
    const started = performance.now();
    const outcomes = await Promise.all(
      created.map(async ({ node, token, sessionId }) => {
        const sent = await call(node, token, `/v1/sessions/${sessionId}/messages`, 'POST', {
          content: 'Where is my order?',
        });
        return followToEnd(node, token, sent.runId as string);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const clients = process.cpuUsage(clientsBefore);
    const cpuAfter = cpuSnapshot(nodes, postmaster);
    const activity = await sampler.stop();
    const transactionsAfter = await nodeTransactions(nodes);
    // pg_stat_database is updated by each backend at most once a second (and when it goes idle).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const workAfter = await databaseWork(storeUrl, name, { reset: false });
    const completed = outcomes.filter((outcome) => outcome === 'completed').length;
    const transactions = new Map<string, number>();
    for (const [work, count] of transactionsAfter) {
      const added = count - (transactionsBefore.get(work) ?? 0);
      if (added > 0) transactions.set(work, added);
    }
    return {
      transactions,
      database: {
        // Less the reading connection's own two (the reset and the read), counted when it closed.
        transactions: workAfter.transactions - workBefore.transactions - 2,
        rowsRead: workAfter.rowsRead - workBefore.rowsRead,
        statements: workAfter.statements,
      },
      runsPerSecond: sessions / seconds,
      seconds,
      completed,
      failures: outcomes.filter((outcome) => outcome !== 'completed'),
      activity,
      cpu: {
        nodes: cpuAfter.nodes.map((value, index) => value - (cpuBefore.nodes[index] ?? 0)),
        postgres: cpuAfter.postgres - cpuBefore.postgres,
        clients: (clients.user + clients.system) / 1e6,
      },
    };
  } finally {
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
    rmSync(directory, { recursive: true, force: true });
  }
}

export function startNode(directory: string, storeUrl: string, name: string): Promise<BenchNode> {
  return startListening(name, [
    cli,
    'serve',
    ...['--port', '0', '--data-dir', join(directory, 'data'), '--auth', join(directory, 'auth.json')],
    ...['--store', storeUrl, '--node-id', name, '--script', join(directory, 'script.json')],
    ...['--tools', join(directory, 'tools.mjs')],
    ...['--sessions-per-minute', '100000', '--messages-per-minute', '100000', '--max-streams', '100000'],
  ]);
}

/**
 * The session bench's control instead of an arbiter node: a plain Node.js HTTP server on `pg`
 * (`bench/plain-session-server.ts`) that answers the same three requests of a one-message session.
 */
export function startPlainServer(storeUrl: string, name: string): Promise<BenchNode> {
  return startListening(name, [plainServer, storeUrl]);
}

/** `node` with the nodes' extra arguments and `script`, up once it prints `listening on URL`. */
async function startListening(name: string, script: readonly string[]): Promise<BenchNode> {
  const command = [process.execPath, ...nodeArguments, ...script];
  const counted =
    callgrindFolder === undefined
      ? command
      : [
          'valgrind',
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${callgrindFolder}/${name}.%p`,
        ].concat(command);
  const child = spawn(counted[0] as string, counted.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ARBITER_SCRIPTED_LATENCY_MS: String(modelLatencyMs), ARBITER_METRICS_TOKEN: metricsToken },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(stdout);
      if (match?.[1] === undefined) return;
      child.stdout?.off('data', onData);
      resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`node ${name} exited (${code}) before listening:\n${stderr}`)));
  });
  // The node logs a line per request: drained, not kept.
  child.stdout?.resume();
  return { url, child, exited };
}

/** Whether the nodes run under callgrind (`ARBITER_BENCH_CALLGRIND`). */
export const countingInstructions = callgrindFolder !== undefined;

/** Zeroes each node's callgrind counters and switches its instrumentation on (a window starts). */
export function startCounting(nodes: readonly BenchNode[]): void {
  for (const node of nodes) {
    callgrind(node, '-z');
    callgrind(node, '-i', 'on');
  }
}

/** Switches each node's instrumentation off and dumps: the instructions each executed since `startCounting`. */
export function stopCounting(nodes: readonly BenchNode[]): number[] {
  return nodes.map((node) => {
    callgrind(node, '-i', 'off');
    callgrind(node, '-d');
    const pid = String(node.child.pid);
    const dumps = safeReaddir(callgrindFolder ?? '')
      .filter((file) => file.split('.').at(-2) === pid)
      .sort((left, right) => Number(left.split('.').at(-1)) - Number(right.split('.').at(-1)));
    const newest = dumps.at(-1);
    const text = newest === undefined ? '' : readFileSync(join(callgrindFolder ?? '', newest), 'utf8');
    const totals = /^totals:\s*(\d+)/m.exec(text)?.[1];
    if (totals === undefined) throw new Error(`no callgrind totals for node ${pid} in ${callgrindFolder}`);
    return Number(totals);
  });
}

function callgrind(node: BenchNode, ...command: string[]): void {
  execFileSync('callgrind_control', [...command, String(node.child.pid)], { stdio: 'ignore' });
}

/** A request that must succeed: its parsed body, or an error naming the request and the answer. */
export async function call(
  node: BenchNode,
  token: string,
  path: string,
  method: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const answer = await requestJson(node.url, path, { token, method, body });
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Follows a run's events over SSE to its end; answers its stop reason, or what went wrong. */
export async function followToEnd(node: BenchNode, token: string, runId: string): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 120_000);
  try {
    const response = await fetch(`${node.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    if (response.body === null) return `no stream (${response.status})`;
    const decoder = new TextDecoder();
    let buffer = '';
    let outcome = 'stream ended without run:end';
    // Left by `break`, and aborted after: aborting inside the loop makes leaving it throw AbortError.
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      const end = /"type":"run:(end|error)"[^\n]*/.exec(buffer);
      if (end !== null) {
        outcome =
          end[1] === 'error' ? `run:error ${end[0]}` : (/"stopReason":"([a-z_]+)"/.exec(end[0])?.[1] ?? 'run:end');
        break;
      }
      buffer = buffer.slice(Math.max(0, buffer.lastIndexOf('\n\n')));
    }
    return outcome;
  } catch (error) {
    return `failed: ${String(error)}`;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** CPU seconds so far of each node and of PostgreSQL (the postmaster and its children), from /proc. */
export function cpuSnapshot(
  nodes: readonly BenchNode[],
  postmaster: number,
): { nodes: number[]; nodeMainThreads: number[]; nodeActivity: NodeActivity[]; postgres: number } {
  let postgres = cpuOf(postmaster);
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat !== undefined && stat.parent === postmaster) postgres += stat.cpu;
  }
  return {
    nodes: nodes.map((node) => cpuOf(node.child.pid ?? -1)),
    // The thread that runs JavaScript (its id is the process's); the rest of a node's CPU is V8's helper threads
    // (garbage collection, compilation) and libuv's pool.
    nodeMainThreads: nodes.map((node) => readStat(node.child.pid ?? -1, { mainThread: true })?.cpu ?? 0),
    nodeActivity: nodes.map((node) => activityOf(node.child.pid ?? -1)),
    postgres,
  };
}

/** What a process asked of the kernel so far: read and write system calls, and how often it left a CPU. */
export interface NodeActivity {
  readonly readCalls: number;
  readonly writeCalls: number;
  /** It waited (for a socket, a timer…). */
  readonly voluntarySwitches: number;
  /** The scheduler took the CPU from it while it had work. */
  readonly involuntarySwitches: number;
}

function activityOf(pid: number): NodeActivity {
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  let io = '';
  let status = '';
  try {
    io = readFileSync(`/proc/${pid}/io`, 'utf8');
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {}
  return {
    readCalls: field(io, 'syscr'),
    writeCalls: field(io, 'syscw'),
    voluntarySwitches: field(status, 'voluntary_ctxt_switches'),
    involuntarySwitches: field(status, 'nonvoluntary_ctxt_switches'),
  };
}

function cpuOf(pid: number): number {
  return readStat(pid)?.cpu ?? 0;
}

export function readStat(pid: number, { mainThread = false } = {}): { parent: number; cpu: number } | undefined {
  try {
    const text = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces), from field 3 (state) on.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / clockTicks };
  } catch {
    return undefined;
  }
}

export function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

if (isMainModule(import.meta.url)) {
  const { lines, ratios } = await runClusterBench();
  console.log(lines.join('\n'));
  console.log(JSON.stringify(ratios));
}
