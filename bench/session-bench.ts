/**
 * `npm run bench -- session`: what one-message sessions cost on PostgreSQL,
 * end to end, as a client runs them: create the session over HTTP, post one
 * message (the scripted model calls one read tool, then answers), follow
 * the run's SSE stream to its `run:end`. Real nodes (the compiled CLI) on a
 * throwaway cluster this bench starts (`initdb`/`pg_ctl`, as the tests do):
 * a group of one node and a group of three, each on a database of its own,
 * started and warmed once (`warmUp` sessions per node), then measured in
 * alternating windows, the order swapped each round, so load from elsewhere
 * that drifts over the run falls on both alike. A window is `sessions`
 * sessions spread round-robin over the group's nodes (each session's three
 * requests on one node), `concurrency` at a time, after `concurrency`
 * unmeasured sessions per node (the pools' connections opened again).
 *
 * Per session, counted over the window:
 * - transactions: PostgreSQL's own count for the database (pg_stat_database
 *   `xact_commit + xact_rollback` deltas; a statement outside a transaction
 *   counts as one), the nodes' background work in the window included, over
 *   the window's sessions and the reopening sessions before it (a backend
 *   reports its counts late, `statisticsDelayMs`);
 * - PostgreSQL CPU: utime + stime from /proc/PID/stat of the postmaster, its
 *   auxiliary processes and the backends of the group's database, process
 *   by process (one that exits in the window takes none of it along);
 * - node CPU: utime + stime of the group's node processes, summed (what
 *   `process.cpuUsage` of each reports, read from outside);
 * - what the nodes did, from each node's `/metrics`: its transactions by
 *   kind and its cluster work (notifications and what came of them, event
 *   table reads, lease keeper passes), summed over the nodes.
 * Targets: <= 12 transactions and <= 5 ms of PostgreSQL CPU per session on
 * one node; node CPU per session 3 nodes ÷ 1 node <= 1.15 beyond what the
 * same ratio of a plain Node.js server is in the same round (the control,
 * below), judged on the median over the rounds (each round's windows ran
 * back to back), printed with its 95% interval beside the raw ratios; three
 * idle nodes <= 0.5% of a core each.
 *
 * Then one session alone on one warm node with `log_statement = all`: every
 * transaction it caused, in order, with its statements (`--list` prints
 * them all; otherwise the count and the shapes).
 *
 * Environment: ARBITER_BENCH_SESSIONS (200), ARBITER_BENCH_WARM_UP_RUNS
 * (150), ARBITER_BENCH_ROUNDS (7), ARBITER_BENCH_CONCURRENCY (20),
 * ARBITER_BENCH_IDLE (1; 0 skips the 30 s idle measure),
 * ARBITER_BENCH_DIAGNOSE (1: each round also measures one node at a third of
 * the concurrency and three nodes with all sessions on the first),
 * ARBITER_BENCH_NODE_ARGS (extra `node` arguments for the nodes, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`), ARBITER_BENCH_CONTROL (0 leaves the
 * plain server out: the raw 3 ÷ 1 is then the target), ARBITER_BENCH_CALLGRIND
 * (a folder: the nodes run under callgrind and each window's instructions
 * per session are printed too; slow, a diagnosis).
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { PostgresCluster } from '../src/store/postgres/test-support/start-postgres-cluster.js';
import { statementShape } from '../src/store/postgres/transaction-counts.js';
import {
  type BenchNode,
  call,
  countingInstructions,
  cpuSnapshot,
  databaseWork,
  followToEnd,
  idleRound,
  type NodeActivity,
  nodeCounters,
  onThrowawayCluster,
  prepareRound,
  readStat,
  safeReaddir,
  startCounting,
  startNode,
  startPlainServer,
  stopCounting,
  tokenOf,
} from './cluster-bench.js';
import { type BenchResult, isMainModule, median, type Target, target } from './measure.js';
import { addedFraction } from './measure-paired.js';

const sessions = Number(process.env.ARBITER_BENCH_SESSIONS ?? 200);
const warmUp = Number(process.env.ARBITER_BENCH_WARM_UP_RUNS ?? 150);
const rounds = Number(process.env.ARBITER_BENCH_ROUNDS ?? 7);
const concurrency = Number(process.env.ARBITER_BENCH_CONCURRENCY ?? 20);
const measureIdle = process.env.ARBITER_BENCH_IDLE !== '0';
/** Also measured each round: one node at a third of the concurrency, and three nodes with one serving all. */
const diagnose = process.env.ARBITER_BENCH_DIAGNOSE === '1';
/**
 * Also measured each round, as the control (`ARBITER_BENCH_CONTROL=0` leaves it out): the same sessions on a
 * plain Node.js HTTP server on `pg` (`bench/plain-session-server.ts`), one process and three, so the ratio of a
 * server without arbiter's code is read beside arbiter's on the same machine in the same round. On two cores
 * shared with PostgreSQL and the clients, three processes of that server cost 1.3-1.6 times one per session
 * (docs/benchmarks.md): the node CPU target is judged on arbiter's ratio over the control's, round by round.
 */
const control = process.env.ARBITER_BENCH_CONTROL !== '0';

/** A configuration measured in every round: its nodes, started and warmed once, on a database of its own. */
interface NodeGroup {
  readonly nodeCount: number;
  readonly name: string;
  readonly storeUrl: string;
  readonly directory: string;
  readonly nodes: readonly BenchNode[];
}

/**
 * How long after its last transaction a backend's counts are surely in `pg_stat_database`: a backend reports at
 * most once a second, and one that ran within a second of its last report waits until it has been idle 10 s
 * (PostgreSQL 15's PGSTAT_MIN_INTERVAL and PGSTAT_IDLE_INTERVAL). Read sooner, a 1.3 s window of busy backends
 * counted 5 transactions a session where the nodes had run 11.
 */
const statisticsDelayMs = 10_500;

/** One measured window of one group: `sessions` sessions, and what they cost. */
interface SessionRound {
  readonly nodeCount: number;
  readonly completed: number;
  readonly seconds: number;
  readonly transactions: number;
  /** The sessions `transactions` were counted over: the window's and the reopening ones before it. */
  readonly transactionSessions: number;
  readonly postgresCpu: number;
  /** PostgreSQL CPU seconds by process kind (client backends, walwriter, autovacuum…). */
  readonly postgresByKind: Record<string, number>;
  readonly nodeCpu: readonly number[];
  /** Of `nodeCpu`, each node's JavaScript thread (the rest: V8's collector and compiler threads, libuv's pool). */
  readonly nodeMainThreadCpu: readonly number[];
  /** The group's system calls and context switches over the window, summed over its nodes. */
  readonly nodeActivity: NodeActivity;
  /** Each node's instructions over the window, all its threads (`ARBITER_BENCH_CALLGRIND`; empty otherwise). */
  readonly nodeInstructions: readonly number[];
  readonly failures: readonly string[];
  /** The statements of the window by calls (pg_stat_statements): calls, ms, text. */
  readonly statements: readonly { query: string; calls: number; milliseconds: number }[];
  /** Each node's counters' increase over the window (`nodeCounters`: its transactions by kind, its cluster work). */
  readonly counters: readonly Map<string, number>[];
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

async function startGroup(cluster: PostgresCluster, nodeCount: number, { plain = false } = {}): Promise<NodeGroup> {
  const name = `session_${plain ? 'plain' : 'nodes'}_${nodeCount}`;
  const { storeUrl, directory } = await prepareRound(cluster, name);
  const nodes: BenchNode[] = [];
  // One after another: the first creates the schema.
  for (let index = 0; index < nodeCount; index += 1) {
    const nodeName = `session-${plain ? 'plain' : 'node'}-${nodeCount}-${index + 1}`;
    nodes.push(await (plain ? startPlainServer(storeUrl, nodeName) : startNode(directory, storeUrl, nodeName)));
  }
  return { nodeCount, name, storeUrl, directory, nodes };
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

/** The increase of each counter from `before` to `after` (those that grew). */
function counterDeltas(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const deltas = new Map<string, number>();
  for (const [key, value] of after) {
    const added = value - (before.get(key) ?? 0);
    if (added > 0) deltas.set(key, added);
  }
  return deltas;
}

/**
 * One measured window of a warm group: `sessions` sessions spread
 * round-robin over its nodes, `concurrency` at a time, and what they cost,
 * read from PostgreSQL, /proc and each node's `/metrics`.
 */
async function sessionWindow(
  cluster: PostgresCluster,
  group: NodeGroup,
  {
    limit = concurrency,
    targets = group.nodes,
  }: {
    /** Sessions at a time. */
    limit?: number;
    /** The nodes the sessions go to, round-robin (every node of the group by default). */
    targets?: readonly BenchNode[];
  } = {},
): Promise<SessionRound> {
  const { nodes, name, storeUrl } = group;
  // Read before the reopening sessions, whose counts PostgreSQL reports too late to be told from the window's.
  const transactionsBefore = await transactionsOf(cluster, name);
  // While the other group was measured, this group's pools let their idle connections go (10 s): a few
  // sessions on each node first open them again, so no window pays reconnecting and preparing statements.
  const reopening = await Promise.all(
    nodes.map((node) => inParallel(concurrency, concurrency, (index) => oneSession(node, tokenOf(index)))),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const postmaster = postmasterOf(cluster);
  await databaseWork(storeUrl, name, { reset: true });
  const countersBefore = await Promise.all(nodes.map(nodeCounters));
  const cpuBefore = cpuSnapshot(nodes, postmaster);
  const postgresBefore = postgresProcesses(postmaster, name);
  if (countingInstructions) startCounting(nodes);
  const started = performance.now();
  const outcomes = await inParallel(sessions, limit, (session) =>
    oneSession(targets[session % targets.length] as BenchNode, tokenOf(session % 300)),
  );
  const seconds = (performance.now() - started) / 1000;
  const nodeInstructions = countingInstructions ? stopCounting(nodes) : [];
  const cpuAfter = cpuSnapshot(nodes, postmaster);
  const postgresByKind = postgresCpuByKind(postgresBefore, postgresProcesses(postmaster, name));
  // Work the sessions left behind (closed streams' slots, given back within 100 ms) is theirs.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const countersAfter = await Promise.all(nodes.map(nodeCounters));
  const work = await databaseWork(storeUrl, name, { reset: false });
  await new Promise((resolve) => setTimeout(resolve, statisticsDelayMs));
  const transactionsAfter = await transactionsOf(cluster, name);
  const completed = outcomes.filter((outcome) => outcome === 'completed').length;
  return {
    nodeCount: nodes.length,
    completed,
    seconds,
    transactions: transactionsAfter - transactionsBefore,
    transactionSessions: completed + reopening.flat().filter((outcome) => outcome === 'completed').length,
    postgresCpu: Object.values(postgresByKind).reduce((sum, value) => sum + value, 0),
    postgresByKind,
    nodeCpu: cpuAfter.nodes.map((value, node) => value - (cpuBefore.nodes[node] ?? 0)),
    nodeMainThreadCpu: cpuAfter.nodeMainThreads.map((value, node) => value - (cpuBefore.nodeMainThreads[node] ?? 0)),
    nodeActivity: activityDelta(cpuBefore.nodeActivity, cpuAfter.nodeActivity),
    nodeInstructions,
    failures: outcomes.filter((outcome) => outcome !== 'completed'),
    statements: work.statements,
    counters: countersAfter.map((after, node) => counterDeltas(countersBefore[node] ?? new Map(), after)),
  };
}

/** What the nodes did with the kernel between two snapshots, summed over the nodes. */
function activityDelta(before: readonly NodeActivity[], after: readonly NodeActivity[]): NodeActivity {
  const sum = (key: keyof NodeActivity) =>
    after.reduce((total, node, index) => total + node[key] - (before[index]?.[key] ?? 0), 0);
  return {
    readCalls: sum('readCalls'),
    writeCalls: sum('writeCalls'),
    voluntarySwitches: sum('voluntarySwitches'),
    involuntarySwitches: sum('involuntarySwitches'),
  };
}

/** One PostgreSQL process as the window sees it: its kind and CPU seconds so far. */
interface PostgresProcess {
  readonly kind: string;
  readonly cpu: number;
}

/**
 * The postmaster and each process it started, by pid: its kind (`client
 * backend` for a connection to `database`, else the process title's name:
 * `walwriter`, `autovacuum launcher`, …) and its CPU seconds so far.
 * Connections to other databases (the other group's nodes, idle) are left
 * out.
 */
function postgresProcesses(postmaster: number, database: string): Map<number, PostgresProcess> {
  const processes = new Map<number, PostgresProcess>([
    [postmaster, { kind: 'postmaster', cpu: readStat(postmaster)?.cpu ?? 0 }],
  ]);
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
    const connection = /^postgres: \S+ (\S+) [\d.]+\(\d+\)/.exec(title);
    if (connection !== null && connection[1] !== database) continue;
    const kind =
      connection !== null ? 'client backend' : title.replace(/^postgres: /, '').replace(/\s+(idle|active).*$/, '');
    processes.set(Number(entry), { kind, cpu: stat.cpu });
  }
  return processes;
}

/**
 * CPU seconds each kind of process used between two `postgresProcesses`,
 * process by process: one started in the window counts whole, one that
 * exited in it counts what it had used by `before` (none of the window).
 */
function postgresCpuByKind(
  before: Map<number, PostgresProcess>,
  after: Map<number, PostgresProcess>,
): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const [pid, { kind, cpu }] of after) kinds[kind] = (kinds[kind] ?? 0) + cpu - (before.get(pid)?.cpu ?? 0);
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
  const nodes = [await startNode(directory, storeUrl, 'listed-node')];
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

/**
 * Each counter per session, summed over the nodes, median over the rounds:
 * `1 node  3 nodes  3 nodes' busiest  counter`, cluster work first. A
 * counter that grows with the node count is work a node does for the others.
 */
function counterTable(ones: readonly SessionRound[], threes: readonly SessionRound[]): string[] {
  const keys = new Set([...ones, ...threes].flatMap((round) => round.counters.flatMap((node) => [...node.keys()])));
  const perSession = (round: SessionRound, key: string) =>
    round.counters.reduce((sum, node) => sum + (node.get(key) ?? 0), 0) / Math.max(1, round.completed);
  const busiest = (round: SessionRound, key: string) =>
    Math.max(...round.counters.map((node) => node.get(key) ?? 0)) / Math.max(1, round.completed);
  return [...keys]
    .sort((left, right) =>
      left.startsWith('work') === right.startsWith('work')
        ? left.localeCompare(right)
        : left.startsWith('work')
          ? -1
          : 1,
    )
    .map(
      (key) =>
        `    ${median(ones.map((round) => perSession(round, key)))
          .toFixed(2)
          .padStart(6)} ` +
        `${median(threes.map((round) => perSession(round, key)))
          .toFixed(2)
          .padStart(6)} ` +
        `${median(threes.map((round) => busiest(round, key)))
          .toFixed(2)
          .padStart(6)}  ${key}`,
    );
}

export function runSessionBench(): Promise<BenchResult> {
  return onThrowawayCluster(
    'session',
    async (cluster) => {
      const ones: SessionRound[] = [];
      const threes: SessionRound[] = [];
      const oneAtAThird: SessionRound[] = [];
      const threeOnFirst: SessionRound[] = [];
      const plainOnes: SessionRound[] = [];
      const plainThrees: SessionRound[] = [];
      const plainGroups: NodeGroup[] = [];
      // Both groups started and warmed once, then measured in alternating windows, the order swapped each round:
      // load from elsewhere that drifts over the run falls on both alike.
      const one = await startGroup(cluster, 1);
      let three: NodeGroup | undefined;
      try {
        const started = await startGroup(cluster, 3);
        three = started;
        await warm(one.nodes);
        await warm(started.nodes);
        if (control) {
          plainGroups.push(
            await startGroup(cluster, 1, { plain: true }),
            await startGroup(cluster, 3, { plain: true }),
          );
          for (const group of plainGroups) await warm(group.nodes);
        }
        // Settled: the warm-up's batches written, its streams closed, the statistics reported.
        await new Promise((resolve) => setTimeout(resolve, statisticsDelayMs));
        for (let index = 0; index < rounds; index += 1) {
          const order = index % 2 === 0 ? [one, started] : [started, one];
          for (const group of order) {
            const window = await sessionWindow(cluster, group);
            (group === one ? ones : threes).push(window);
          }
          const [plainOne, plainThree] = plainGroups;
          if (plainOne !== undefined && plainThree !== undefined)
            for (const group of index % 2 === 0 ? [plainOne, plainThree] : [plainThree, plainOne]) {
              const window = await sessionWindow(cluster, group);
              (group === plainOne ? plainOnes : plainThrees).push(window);
            }
          if (!diagnose) continue;
          // Where a ratio comes from: one node as lightly loaded as each of three, and three with one serving.
          oneAtAThird.push(await sessionWindow(cluster, one, { limit: Math.ceil(concurrency / 3) }));
          threeOnFirst.push(await sessionWindow(cluster, started, { targets: started.nodes.slice(0, 1) }));
        }
      } finally {
        await stopNodes(one.nodes, one.directory);
        if (three !== undefined) await stopNodes(three.nodes, three.directory);
        for (const group of plainGroups) await stopNodes(group.nodes, group.directory);
      }
      const perSession = (value: (round: SessionRound) => number) => (round: SessionRound) =>
        value(round) / Math.max(1, round.completed);
      const transactions = (round: SessionRound) => round.transactions / Math.max(1, round.transactionSessions);
      const postgresMs = perSession((round) => round.postgresCpu * 1000);
      const nodeMs = perSession((round) => round.nodeCpu.reduce((sum, value) => sum + value, 0) * 1000);
      const mainThreadMs = perSession((round) => round.nodeMainThreadCpu.reduce((sum, value) => sum + value, 0) * 1000);
      const otherThreadsMs = (round: SessionRound) => nodeMs(round) - mainThreadMs(round);
      const nodeOne = median(ones.map(nodeMs));
      const nodeThree = median(threes.map(nodeMs));
      // Each round's 3-node window over its 1-node window (run back to back): the median and its 95% interval.
      const ratio = addedFraction(threes.map(nodeMs), ones.map(nodeMs));
      const roundRatios = (threeWindows: readonly SessionRound[], oneWindows: readonly SessionRound[]) =>
        threeWindows.map((round, index) => nodeMs(round) / nodeMs(oneWindows[index] as SessionRound));
      // Each round's 3 ÷ 1, arbiter's and the control's, and arbiter's over the control's in the same round.
      const arbiterRatios = roundRatios(threes, ones);
      const plainRatios = roundRatios(plainThrees, plainOnes);
      const overControl = arbiterRatios.map((value, index) => value / (plainRatios[index] as number));
      const plainRatio =
        plainOnes.length === 0 ? undefined : addedFraction(plainThrees.map(nodeMs), plainOnes.map(nodeMs));
      const controlRatio = plainRatio === undefined ? undefined : addedFraction(arbiterRatios, plainRatios);
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
        // With the control: arbiter's 3 ÷ 1 over the plain server's, each round's windows run back to back.
        controlRatio === undefined
          ? target({
              id: 'session_node_cpu_three_vs_one',
              description: "node CPU per session, 3 nodes / 1 node (median of the rounds' ratios)",
              value: 1 + ratio.median,
              comparison: '<=',
              limit: 1.15,
            })
          : target({
              id: 'session_node_cpu_three_vs_one_over_plain_server',
              description:
                "node CPU per session 3 nodes / 1 node, over a plain server's 3 / 1 in the same round (median of the rounds)",
              value: 1 + controlRatio.median,
              comparison: '<=',
              limit: 1.15,
            }),
      ];
      // Under callgrind: what the nodes executed per session, whatever the cores' sharing made each instruction cost.
      const instructions = perSession((round) => round.nodeInstructions.reduce((sum, value) => sum + value, 0));
      const instructionRatio = countingInstructions
        ? addedFraction(threes.map(instructions), ones.map(instructions))
        : undefined;
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
        ...(diagnose
          ? [
              row(`1 node, ${Math.ceil(concurrency / 3)} at a time`, oneAtAThird),
              row('3 nodes, all sessions on the first', threeOnFirst),
            ]
          : []),
        ...(plainOnes.length === 0
          ? []
          : [
              row('plain server (control), 1 process ', plainOnes),
              row('plain server (control), 3 processes', plainThrees),
              `  plain server node CPU per session 3 ÷ 1: each round's ratio ${plainRatios
                .map((value) => value.toFixed(2))
                .join(', ')}; median ${(1 + (plainRatio?.median ?? Number.NaN)).toFixed(2)}`,
            ]),
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
        `  node CPU per session 3 nodes / 1 node: each round's ratio ${arbiterRatios
          .map((value) => value.toFixed(2))
          .join(', ')}; median ${(1 + ratio.median).toFixed(2)}, 95% interval ${(1 + ratio.confidenceLow).toFixed(2)}` +
          `–${(1 + ratio.confidenceHigh).toFixed(2)}, quartiles ${(1 + ratio.lowerQuartile).toFixed(2)}–` +
          `${(1 + ratio.upperQuartile).toFixed(2)}; ratio of the medians ${(nodeThree / nodeOne).toFixed(2)}`,
        ...(controlRatio === undefined
          ? []
          : [
              `  over the plain server's 3 ÷ 1 in the same round: ${overControl
                .map((value) => value.toFixed(2))
                .join(', ')}; median ${(1 + controlRatio.median).toFixed(2)}, 95% interval ` +
                `${(1 + controlRatio.confidenceLow).toFixed(2)}–${(1 + controlRatio.confidenceHigh).toFixed(2)}`,
            ]),
        ...(instructionRatio === undefined
          ? []
          : [
              `  node instructions per session (callgrind, all threads), 1 node / 3 nodes: ` +
                `${(median(ones.map(instructions)) / 1e6).toFixed(2)}M / ${(median(threes.map(instructions)) / 1e6).toFixed(2)}M; ` +
                `each round's ratio ${threes
                  .map((round, index) => (instructions(round) / instructions(ones[index] as SessionRound)).toFixed(3))
                  .join(', ')}; median ${(1 + instructionRatio.median).toFixed(3)}` +
                (plainOnes.length === 0
                  ? ''
                  : `; the plain server ${(median(plainOnes.map(instructions)) / 1e6).toFixed(2)}M / ` +
                    `${(median(plainThrees.map(instructions)) / 1e6).toFixed(2)}M, median ratio ` +
                    `${(1 + addedFraction(plainThrees.map(instructions), plainOnes.map(instructions)).median).toFixed(3)}`),
            ]),
        // Where the difference lies: the thread that runs arbiter's JavaScript, or the node's other threads.
        `  of it, the JavaScript thread: ${median(ones.map(mainThreadMs)).toFixed(2)} / ` +
          `${median(threes.map(mainThreadMs)).toFixed(2)} ms per session (3 ÷ 1 ${threes
            .map((round, index) => (mainThreadMs(round) / mainThreadMs(ones[index] as SessionRound)).toFixed(2))
            .join(', ')}); V8's and libuv's other threads: ${median(ones.map(otherThreadsMs)).toFixed(2)} / ` +
          `${median(threes.map(otherThreadsMs)).toFixed(2)} ms (3 ÷ 1 ${threes
            .map((round, index) => (otherThreadsMs(round) / otherThreadsMs(ones[index] as SessionRound)).toFixed(2))
            .join(', ')})`,
        `  the nodes' system calls and switches per session, 1 node / 3 nodes (median of the rounds): ${(
          ['readCalls', 'writeCalls', 'voluntarySwitches', 'involuntarySwitches'] as const
        )
          .map(
            (key) =>
              `${key} ${median(ones.map(perSession((round) => round.nodeActivity[key]))).toFixed(1)} / ` +
              `${median(threes.map(perSession((round) => round.nodeActivity[key]))).toFixed(1)}`,
          )
          .join(', ')}`,
        '  what the nodes did per session, summed over the nodes (their /metrics; median of the rounds):',
        ...counterTable(ones, threes),
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
