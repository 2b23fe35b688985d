import type { StopReason } from '../core/stop-reason.js';
import type { EventLog } from '../events/event-log.js';
import type { ExternalEvent } from '../events/external-event.js';
import { ClusterWorkCounts } from '../store/postgres/cluster-work-counts.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { PostgresListener } from '../store/postgres/postgres-listener.js';
import { type PostgresServerRuns, runQueueChannel } from '../store/postgres/postgres-server-runs.js';
import type { ServerRun, ServerRunStatus } from '../store/server-run.js';
import type { Session, SessionStore } from '../store/session-store.js';
import type { PostgresRunRecords } from './postgres-run-records.js';
import type { RunManager } from './run-manager.js';
import type { ServerLogger } from './server-log.js';

/** How often, in claims, a node looks for sessions running a run with no record (the first claim does). */
const adoptEveryClaims = 10;

/**
 * One node's side of the run queue on PostgreSQL. Every `renewMs` it
 * renews the leases of the runs it executes (and its open streams, through
 * `onRenew`); every `claimMs`, and whenever another node notifies
 * `arbiter_runs` (a run requeued after an approval), it claims free or
 * lapsed runs and executes each: resumed from its journal when its session
 * still has it as its active run (`runSession({ resume: true })`: recorded
 * tool results are reused, idempotency keys stop a second execution), or
 * settled from its last logged event when the session has left it (a node
 * died between the two writes of the run's end). Every tenth claim also
 * adopts the runs of sessions left running with no record of the run (a
 * node died between beginning the run and recording it, two writes on
 * PostgreSQL) once the session has been still for three leases. A lease this node fails
 * to renew (another node claimed the run after this one stalled) is
 * dropped and logged.
 *
 * @example
 * const keeper = new RunLeaseKeeper({ database, runs, records, sessions, log, nodeId, leaseMs: 15_000 });
 * await keeper.start(manager);
 */
export class RunLeaseKeeper {
  readonly #options: {
    readonly database: PostgresDatabase;
    readonly runs: PostgresServerRuns;
    readonly records: PostgresRunRecords;
    readonly sessions: SessionStore;
    readonly log: EventLog;
    readonly nodeId: string;
    readonly leaseMs: number;
    readonly renewMs: number;
    readonly claimMs: number;
    readonly onRenew: () => Promise<void>;
    readonly onError: (error: unknown) => void;
    readonly logger: ServerLogger;
    readonly counts: ClusterWorkCounts;
  };
  #manager: RunManager | undefined;
  #timers: ReturnType<typeof setInterval>[] = [];
  #listener: PostgresListener | undefined;
  /** `start` under way or done: `stop` waits for it, so a listener opened after `stop` was called is closed too. */
  #starting: Promise<void> | undefined;
  /** The claim under way, if one is: `stop` waits for it, so no claim runs on a closed pool. */
  #claiming: Promise<void> | undefined;
  /** Claims so far: every `adoptEveryClaims`-th also adopts orphaned runs. */
  #claims = 0;
  #claimAgain = false;
  #stopped = false;

  constructor({
    database,
    runs,
    records,
    sessions,
    log,
    nodeId,
    leaseMs,
    renewMs = Math.max(50, Math.floor(leaseMs / 3)),
    claimMs = Math.max(50, Math.floor(leaseMs / 3)),
    onRenew = async () => {},
    onError = () => {},
    logger = () => {},
    counts = new ClusterWorkCounts(),
  }: {
    database: PostgresDatabase;
    runs: PostgresServerRuns;
    records: PostgresRunRecords;
    sessions: SessionStore;
    log: EventLog;
    nodeId: string;
    /** How long a lease lasts without renewal: the longest a dead node's run waits for another node. */
    leaseMs: number;
    /** Default a third of the lease: two renewals may fail before the lease lapses. */
    renewMs?: number;
    /** How often free runs are looked for without a notification. Default a third of the lease. */
    claimMs?: number;
    /** Runs with each renewal (the node's open streams). */
    onRenew?: () => Promise<void>;
    onError?: (error: unknown) => void;
    logger?: ServerLogger;
    /** Where the claim passes, renewals and notifications are counted (`GET /metrics`). */
    counts?: ClusterWorkCounts;
  }) {
    this.#options = {
      database,
      runs,
      records,
      sessions,
      log,
      nodeId,
      leaseMs,
      renewMs,
      claimMs,
      onRenew,
      onError,
      logger,
      counts,
    };
  }

  /** Starts renewing, listening and claiming, for `manager`'s runs. */
  start(manager: RunManager): Promise<void> {
    this.#starting ??= this.#begin(manager);
    return this.#starting;
  }

  async #begin(manager: RunManager): Promise<void> {
    this.#manager = manager;
    const { database, renewMs, claimMs } = this.#options;
    this.#listener = await PostgresListener.open({
      database,
      channel: runQueueChannel,
      onNotification: () => {
        this.#options.counts.add('notification runs');
        this.claimNow();
      },
      // A run requeued while the connection was down notified nobody.
      onReconnected: () => this.claimNow(),
      onError: this.#options.onError,
    });
    this.#timers = [setInterval(() => void this.#renew(), renewMs), setInterval(() => this.claimNow(), claimMs)];
    for (const timer of this.#timers) timer.unref();
    this.claimNow();
  }

  /** Makes a run that waited for approval free to claim, and wakes every node to claim it. */
  async requeue(runId: string): Promise<void> {
    // A run still stopping is requeued by its own end (`finish`), which notifies then.
    if ((await this.#options.runs.requeue(runId)) !== 'requeued') return;
    await this.#options.database.query('SELECT pg_notify($1, $2)', [runQueueChannel, runId]);
  }

  /**
   * Lets go of the leases of runs this node stopped at a committed step
   * (shutting down), and wakes every node to claim them at once.
   */
  async handOver(runIds: readonly string[]): Promise<void> {
    const { runs, records, nodeId, logger, database } = this.#options;
    for (const runId of runIds) {
      const run = records.held().find((held) => held.runId === runId);
      records.drop(runId);
      await records.written(runId);
      if (!(await runs.release({ runId, owner: nodeId }))) continue;
      logger({ level: 'info', event: 'run_handed_over', runId, sessionId: run?.sessionId });
    }
    await database.query('SELECT pg_notify($1, $2)', [runQueueChannel, 'handover']);
  }

  /** Looks for runs to claim now (once more after the claim under way, if one is). */
  claimNow(): void {
    if (this.#stopped || this.#manager === undefined) return;
    if (this.#claiming !== undefined) {
      this.#claimAgain = true;
      return;
    }
    this.#claiming = this.#claim().finally(() => {
      this.#claiming = undefined;
      if (this.#claimAgain) {
        this.#claimAgain = false;
        this.claimNow();
      }
    });
  }

  /** Claims no more runs; the leases held are still renewed until `stop`. */
  stopClaiming(): void {
    this.#stopped = true;
  }

  /**
   * Stops claiming and renewing, once a `start` under way has opened its
   * listener (a signal right after the server began to listen comes before
   * that): the listener's connection is handed back and no claim is left
   * running, so the pool can end and the process exit.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting?.catch(() => {});
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    await this.#listener?.close();
    this.#listener = undefined;
    await this.#claiming;
  }

  async #claim(): Promise<void> {
    const { runs, nodeId, leaseMs, logger } = this.#options;
    try {
      // Now and then: sessions a dead node left running with no record of their run (it died in between).
      if (this.#claims % adoptEveryClaims === 0) {
        this.#options.counts.add('adopt pass');
        for (const runId of await runs.adoptOrphans({ olderThanMs: 3 * leaseMs })) {
          logger({ level: 'warn', event: 'run_claimed', action: 'adopted', runId });
        }
      }
      this.#claims += 1;
      for (;;) {
        this.#options.counts.add('claim pass');
        const claimed = await runs.claim({ owner: nodeId, leaseMs, limit: 10 });
        for (const run of claimed) await this.#take(run);
        if (claimed.length < 10 || this.#stopped) return;
      }
    } catch (error) {
      this.#options.onError(error);
    }
  }

  async #take(run: ServerRun): Promise<void> {
    const manager = this.#manager;
    if (manager === undefined) return;
    const { records, sessions, log, logger } = this.#options;
    records.hold(run);
    // This node's own run, whose lease lapsed while it stalled: it goes on as it was.
    if (manager.isActive(run.runId)) return;
    const session = await sessions.load(run.sessionId);
    if (session?.activeRun?.runId === run.runId) {
      // Claimed after an approval, or after its node stopped renewing: either way it continues here.
      logger({
        level: 'info',
        event: 'run_claimed',
        action: 'resumed',
        runId: run.runId,
        sessionId: run.sessionId,
      });
      manager.resume({ runId: run.runId, run, seq: await log.lastSeq(run.runId) });
      return;
    }
    const lastSeq = await log.lastSeq(run.runId);
    const last = (await log.readEvents({ runId: run.runId, afterSeq: Math.max(0, lastSeq - 1) })).at(-1);
    let settledAs: ServerRunStatus;
    if (last?.type === 'run:end') {
      settledAs = last.stopReason;
      records.setStatus(run.runId, settledAs);
    } else if (last?.type === 'run:error') {
      settledAs = 'error';
      records.setStatus(run.runId, 'error', { code: last.code, message: undefined, at: last.at, modelCall: undefined });
    } else {
      // The node died after the session left the run and before the run's end was written: the session
      // says how it ended, and the missing `run:end` is written with the status, so every stream ends.
      const ending = settledEnding(session, run, lastSeq);
      settledAs = ending.stopReason;
      records.setStatus(run.runId, settledAs);
      await log.append([ending]);
    }
    logger({
      level: 'warn',
      event: 'run_claimed',
      action: 'settled',
      runId: run.runId,
      sessionId: run.sessionId,
      stopReason: settledAs,
    });
  }

  async #renew(): Promise<void> {
    const { runs, records, nodeId, leaseMs, logger } = this.#options;
    try {
      const held = records.held();
      if (held.length > 0) this.#options.counts.add('lease renewal');
      const kept = await runs.renewMany({ runIds: held.map((run) => run.runId), owner: nodeId, leaseMs });
      for (const run of held) {
        if (kept.has(run.runId)) continue;
        // Not yet inserted, or ended meanwhile: not lost.
        if (records.writing(run.runId) !== undefined || !records.held().includes(run)) continue;
        records.drop(run.runId);
        logger({ level: 'warn', event: 'run_lease_lost', runId: run.runId, sessionId: run.sessionId });
      }
      await this.#options.onRenew();
    } catch (error) {
      this.#options.onError(error);
    }
  }
}

/**
 * The `run:end` of a run whose session left it but whose end was never
 * logged: `completed` when the conversation ends with an answer, otherwise
 * `aborted`. (A run that stopped to wait for approval stays its session's
 * active run, so it is resumed, never settled here.) Its steps are the
 * assistant turns since the run's request; the tokens it spent are not known
 * after the crash (0).
 */
function settledEnding(
  session: Session | undefined,
  run: ServerRun,
  lastSeq: number,
): ExternalEvent & { type: 'run:end' } {
  const messages = session?.messages ?? [];
  const request = messages.findLastIndex((message) => message.role === 'user');
  const turns = messages.slice(request + 1).filter((message) => message.role === 'assistant');
  const last = messages.at(-1);
  const answered = last?.role === 'assistant' && (last.tool_calls?.length ?? 0) === 0;
  const stopReason: StopReason = answered ? 'completed' : 'aborted';
  const at = Date.now();
  return {
    type: 'run:end',
    runId: run.runId,
    seq: lastSeq + 1,
    at,
    stopReason,
    steps: turns.length,
    durationMs: Math.max(0, at - run.startedAt),
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}
