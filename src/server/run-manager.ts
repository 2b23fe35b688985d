import { setMaxListeners } from 'node:events';
import type { Awaitable } from '../core/awaitable.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import { RunHandedOverError } from '../errors/run-handed-over-error.js';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import { SessionNotFoundError } from '../errors/session-not-found-error.js';
import type { AgentEvent } from '../events/agent-event.js';
import { batchDeltas } from '../events/batch-deltas.js';
import { createEventProjector } from '../events/create-event-projector.js';
import { EventBus } from '../events/event-bus.js';
import type { EventLog } from '../events/event-log.js';
import type { ExternalEvent, ExternalEventBody } from '../events/external-event.js';
import { eventTexts } from '../events/progress-texts.js';
import type { ApprovalBroker } from '../gate/approval-broker.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { IdempotencyStore } from '../gate/idempotency-store.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { RunLimits, RunResult } from '../loop/run-agent.js';
import { runSession } from '../loop/run-session.js';
import type { Model } from '../models/model.js';
import type { ServerRun } from '../store/server-run.js';
import type { BegunRun, EndRunRequest, Session, SessionStore } from '../store/session-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { retryWhileBusy } from '../util/retry-while-busy.js';
import { timeOrderedId } from '../util/time-ordered-id.js';
import { EventLogQueue } from './event-log-queue.js';
import type { RunFailure } from './run-failure.js';
import { type RunFollower, RunFollowers } from './run-followers.js';
import { RunRegistry, type RunStream } from './run-registry.js';
import type { SessionEndOffer } from './run-session-ends.js';
import type { ServerLogger } from './server-log.js';
import type { ServerMetrics } from './server-metrics.js';
import type { ServerRunRecords } from './server-storage.js';
import { SessionTask, SessionTasks } from './session-tasks.js';
import { sessionsForRuns } from './sessions-for-runs.js';
import type { StartRunRequest } from './start-run-request.js';
import { type WatchedFailure, watchModelCalls } from './watch-model-calls.js';

export interface RunManagerOptions {
  readonly sessions: SessionStore;
  readonly runs: ServerRunRecords;
  /**
   * SQLite's answers at once: `replay` and `follow` join in one step. One
   * that answers with promises (PostgreSQL's) is written batch by batch and
   * followed through the server's `followRun`; `replay` and
   * `resumeInterrupted` need a synchronous one.
   */
  readonly log: EventLog;
  readonly approvals: ApprovalBroker;
  readonly tools: ToolRegistry;
  /** The model for a run in this language. */
  readonly model: (locale: Locale) => Model;
  readonly gate: ToolGate;
  readonly metrics: ServerMetrics;
  /** The bus runs emit on. Default: a bus of the manager's own. */
  readonly bus?: EventBus;
  readonly limits?: RunLimits;
  readonly idempotency?: IdempotencyStore;
  readonly audit?: AuditLog;
  /** Text fragments arriving within this window reach clients as one event. Default 30 ms. */
  readonly deltaWindowMs?: number;
  /** How long published events wait for more before they are written (`EventLogQueue`'s `gatherMs`). Default 0. */
  readonly eventGatherMs?: number;
  /** Where a run's end on its session may be written with its terminal event (`ServerStorage.offerSessionEnd`). */
  readonly offerSessionEnd?: (request: EndRunRequest) => SessionEndOffer | undefined;
  /** Told of failures no client can be told of (a run that could not even start). */
  readonly onError?: (error: unknown) => void;
  /** Gets one structured line per failed model call and per run recovered at start-up. Default: none. */
  readonly logger?: ServerLogger;
  /**
   * Where runs execute when not in this process: `start` hands each new run
   * to it (a durable engine, `startInEngine`) and executes nothing here.
   * Default: runs execute here.
   */
  readonly startElsewhere?: (request: StartRunRequest) => Promise<{ runId: string }>;
}

/** The longest a run's end waits for its terminal event to be published (listeners are synchronous). */
const terminalEventWaitMs = 1000;

export type { RunFollower } from './run-followers.js';

/**
 * True for the events after which a run's stream closes: `run:end` (any
 * stop reason, `awaiting_approval` included) and `run:error`.
 *
 * @example
 * if (isTerminalEvent(event)) stream.close();
 */
export function isTerminalEvent(event: { readonly type: string }): boolean {
  return event.type === 'run:end' || event.type === 'run:error';
}

/**
 * Runs sessions in the background and turns their events into streams.
 * One subscriber on the event bus merges text fragments (`batchDeltas`),
 * projects every event for people (`createEventProjector`, in the run's
 * language), numbers it and queues it for the event log. The log is written
 * once per turn of the event loop, in one transaction, rather than once per
 * event, and only then are the events handed to the connections following
 * the run: a client never holds an event the log lacks, so a run resumed
 * after a crash (which continues from the log's last seq) never reuses a
 * number a client has seen. A connection that replays (`replay`: the log)
 * and then follows, in one synchronous step, misses nothing and sees
 * nothing twice.
 *
 * A stream's `seq` is its own: 1, 2, 3… per run with no holes (merged
 * fragments and internal-only events leave none), continued from the log
 * when a run is resumed, even in another process. `at` is the agent's.
 *
 * @example
 * const { runId } = await manager.start({ sessionId, principal, content: 'Where is my order?', locale: 'en' });
 * const stop = manager.follow(runId, (event) => send(event));
 */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #bus: EventBus;
  /** The runs executing here: their streams, the new ones awaiting their `run:start`, the projectors. */
  readonly #runs: RunRegistry;
  readonly #followers = new RunFollowers();
  /** Each session's run executing here, and the starts under way. */
  readonly #tasks = new SessionTasks();
  readonly #stop: () => void;
  readonly #shutdown = new AbortController();
  /** Fired when the server hands its runs over instead of aborting them (`close({ handOver })`). */
  readonly #handover = new AbortController();
  /** The runs that stopped at a committed step to be continued by another process. */
  readonly #handedOver = new Set<string>();
  /** Per session whose run executes here: what `abort` signals (beside the shutdown). */
  readonly #aborts = new Map<string, AbortController>();
  /** Published events not yet in the log. */
  readonly #unlogged: EventLogQueue;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    const onError = options.onError ?? (() => {});
    // Every run listens to this signal; hundreds at once are expected, not a leak.
    setMaxListeners(0, this.#shutdown.signal);
    setMaxListeners(0, this.#handover.signal);
    this.#bus = options.bus ?? new EventBus({ onListenerError: (error) => onError(error) });
    this.#runs = new RunRegistry({ projector: (locale) => createEventProjector({ tools: options.tools, locale }) });
    this.#unlogged = new EventLogQueue({
      log: options.log,
      deliver: (events) => this.#followers.deliver(events),
      onError: (error) => this.#options.onError?.(error),
      stopping: () => this.#shutdown.signal.aborted,
      ...(options.eventGatherMs === undefined ? {} : { gatherMs: options.eventGatherMs }),
    });
    const project = batchDeltas((event) => this.#onEvent(event), {
      windowMs: options.deltaWindowMs ?? 30,
      onError: (error) => onError(error),
    });
    // Both subscribers are synchronous and never fall behind for long, but a burst across many runs must
    // not cost them an event (a dropped tool:start would be a missing progress line or a miscount).
    const stopProjecting = this.#bus.subscribe(project, { queueSize: 1_000_000 });
    const stopMeasuring = this.#bus.subscribe((event) => options.metrics.observe(event), { queueSize: 100_000 });
    this.#stop = () => {
      stopProjecting();
      stopMeasuring();
      project.dispose();
    };
  }

  /**
   * Starts a run with the user's message and resolves with its id once it
   * has begun (its `run:start`). Rejects with `SessionConflictError`, naming
   * the active run, when the session already has one; nothing is written then.
   * The server's record of the run (`ServerRuns`) is written in the same
   * transaction that marks the session's run active, so whatever point the
   * process dies at, a restart finds both or neither (`resumeInterrupted`).
   */
  async start({
    sessionId,
    principal,
    content,
    locale,
    session: read,
  }: {
    sessionId: string;
    principal: Principal;
    content: string;
    locale: Locale;
    /**
     * The session as the caller has just read it (its access check): not
     * read again unless a run of the session had to be waited for here. The
     * run begins fenced on its version either way.
     */
    session?: Session;
  }): Promise<{ runId: string }> {
    if (this.#options.startElsewhere !== undefined) {
      return this.#options.startElsewhere({ sessionId, principal, content, locale, session: read });
    }
    const idle = this.#tasks.get(sessionId) === undefined && !this.#tasks.isStarting(sessionId);
    await this.#tasks.startable(sessionId);
    const active = this.#tasks.get(sessionId);
    if (active !== undefined) {
      throw new SessionConflictError({ sessionId, conflict: { kind: 'run_active', activeRunId: active.runId } });
    }
    const started = this.#tasks.beginStart(sessionId);
    const runId = timeOrderedId();
    try {
      const session = idle && read?.id === sessionId ? read : await this.#options.sessions.load(sessionId);
      if (session === undefined) {
        throw new SessionNotFoundError({ sessionId });
      }
      await new Promise<string>((resolve, reject) => {
        this.#runs.expect(runId, { sessionId, locale, resolve });
        let recorded: string | undefined;
        const sessions = this.#sessionsForRuns({
          onBegin: (begun) => {
            if (begun.resumed) return undefined;
            const record = {
              runId: begun.runId,
              sessionId,
              tenantId: principal.tenantId,
              principal,
              locale,
              messageOffset: begun.messageOffset,
            };
            // Written by the begin's own transaction where the store can (PostgreSQL: one transaction, not two).
            const within = this.#options.runs.insertWithin?.(record);
            if (within === undefined) this.#options.runs.insert(record);
            recorded = begun.runId;
            const task = this.#tasks.get(sessionId);
            if (task !== undefined) task.runId = begun.runId;
            return within;
          },
        });
        const run = runSession({
          ...this.#runOptions({ principal, locale, sessionId, sessions }),
          sessionId,
          userMessage: content,
          runId,
          // Read just above, after the session's previous run let go: not read a second time.
          loaded: session,
        });
        this.#track({
          sessionId,
          runId: undefined,
          run,
          onEarlyFailure: (error) => {
            // Begun, then failed before its run:start: the record must not say it is still running.
            if (recorded !== undefined) this.#options.runs.setStatus(recorded, 'error', failureOf(error));
            reject(error);
          },
        });
      });
      await this.#options.runs.written?.(runId);
      return { runId };
    } finally {
      this.#runs.forget(runId);
      started();
    }
  }

  /**
   * Continues a run that stopped for an approval, in the background; its
   * events continue on the same stream. A run still stopping is resumed as
   * soon as it has stopped.
   */
  resume({ runId, run: known, seq: knownSeq }: { runId: string; run?: ServerRun; seq?: number }): void {
    const found = known ?? this.#options.runs.find(runId);
    const lastSeq = knownSeq ?? this.lastSeq(runId);
    if (found instanceof Promise || lastSeq instanceof Promise) {
      // An asynchronous store: resumed once both are read, unless a run of the session began meanwhile.
      Promise.all([found, lastSeq]).then(
        ([run, seq]) => {
          if (run !== undefined) this.#resume(run, seq);
        },
        (error: unknown) => this.#options.onError?.(error),
      );
      return;
    }
    if (found !== undefined) this.#resume(found, lastSeq);
  }

  #resume(run: ServerRun, seq: number): void {
    const { runId } = run;
    const task = this.#tasks.get(run.sessionId);
    if (task !== undefined) {
      task.queueResume();
      return;
    }
    this.#runs.open(runId, {
      sessionId: run.sessionId,
      locale: run.locale,
      seq,
    });
    const previous = run.status;
    this.#options.runs.setStatus(runId, 'running');
    const resumed = runSession({
      ...this.#runOptions({ principal: run.principal, locale: run.locale, sessionId: run.sessionId }),
      sessionId: run.sessionId,
      resume: true,
      announcedApprovals: (runId) => this.#announcedApprovals(runId),
    });
    this.#track({
      sessionId: run.sessionId,
      runId,
      run: resumed,
      onEarlyFailure: (error) => {
        this.#runs.close(runId);
        this.#options.runs.setStatus(runId, previous, run.failure);
        this.#options.onError?.(error);
      },
    });
  }

  /**
   * At start-up: brings every session a previous process left in the
   * middle of a run back to a state it can leave, and resumes the runs
   * that were cut off. Returns how many runs it resumed.
   *
   * - a run the server recorded as `running` that is still its session's
   *   active run: resumed from its last committed step;
   * - a session running a run the server has no record of (left by a
   *   server before the run and its record began in one write): the run is
   *   adopted, acting for the session's owner (tenant and user, no roles)
   *   in the language the session recorded for the run (English when it
   *   recorded none), and resumed;
   * - a run the server saw end while its session still has it active: the
   *   session's run is ended (`idle`, or `awaiting_approval`);
   * - a run recorded as `running` that its session already left: given the
   *   status its logged terminal event says, else `aborted`.
   *
   * Each case is logged (`session_recovered`).
   */
  resumeInterrupted(): number {
    const { runs, sessions, log } = this.#options;
    const logger = this.#options.logger ?? (() => {});
    for (const orphan of runs.listOrphans()) {
      const principal = { tenantId: orphan.tenantId, userId: orphan.userId, roles: [] };
      runs.insert({
        runId: orphan.runId,
        sessionId: orphan.sessionId,
        tenantId: orphan.tenantId,
        principal,
        locale: orphan.locale ?? 'en',
        messageOffset: orphan.messageOffset,
      });
      logger({
        level: 'warn',
        event: 'session_recovered',
        action: 'adopted',
        runId: orphan.runId,
        sessionId: orphan.sessionId,
      });
    }
    for (const run of runs.listUnended()) {
      const status = run.status === 'awaiting_approval' ? 'awaiting_approval' : 'idle';
      logger({
        level: 'warn',
        event: 'session_recovered',
        action: `ended_${status}`,
        runId: run.runId,
        sessionId: run.sessionId,
      });
      sessions
        .endRun({ sessionId: run.sessionId, runId: run.runId, status, lastSeq: answered(this.lastSeq(run.runId)) })
        .catch((error: unknown) => this.#options.onError?.(error));
    }
    for (const run of runs.listLost()) {
      const afterSeq = Math.max(0, answered(log.lastSeq(run.runId)) - 1);
      const last = answered(log.readEvents({ runId: run.runId, afterSeq })).at(-1);
      if (last?.type === 'run:end') runs.setStatus(run.runId, last.stopReason);
      else if (last?.type === 'run:error') {
        runs.setStatus(run.runId, 'error', { code: last.code, message: undefined, at: last.at, modelCall: undefined });
      } else runs.setStatus(run.runId, 'aborted');
      logger({
        level: 'warn',
        event: 'session_recovered',
        action: 'settled',
        runId: run.runId,
        sessionId: run.sessionId,
        status: last?.type === 'run:end' ? last.stopReason : last?.type === 'run:error' ? 'error' : 'aborted',
      });
    }
    const interrupted = runs.listInterrupted();
    for (const run of interrupted) {
      logger({
        level: 'info',
        event: 'session_recovered',
        action: 'resumed',
        runId: run.runId,
        sessionId: run.sessionId,
      });
      this.resume({ runId: run.runId });
    }
    return interrupted.length;
  }

  /**
   * The run's logged events after `afterSeq`, in order. What is published
   * but not yet written reaches followers when it is written, so call this
   * in the same synchronous step as `follow` to join replay and live without
   * a gap or a duplicate.
   */
  replay(runId: string, afterSeq: number): ExternalEvent[] {
    const events: ExternalEvent[] = [];
    let last = afterSeq;
    for (let page = answered(this.#options.log.readEvents({ runId, afterSeq })); page.length > 0; ) {
      events.push(...page);
      last = page.at(-1)?.seq ?? last;
      page = answered(this.#options.log.readEvents({ runId, afterSeq: last }));
    }
    return events;
  }

  /** The seq of the run's last published event (0 before the first). */
  /** The approvals the run's events announced, logged or still queued. */
  async #announcedApprovals(runId: string): Promise<string[]> {
    const announced: string[] = [];
    const collect = (events: readonly ExternalEvent[]) => {
      for (const event of events) if (event.type === 'approval:required') announced.push(event.approvalId);
    };
    const pageSize = 1000;
    for (let afterSeq = 0; ; ) {
      const page = await this.#options.log.readEvents({ runId, afterSeq, limit: pageSize, type: 'approval:required' });
      collect(page);
      if (page.length < pageSize) break;
      afterSeq = page.at(-1)?.seq ?? afterSeq;
    }
    collect(this.#unlogged.queued(runId));
    return announced;
  }

  lastSeq(runId: string): Awaitable<number> {
    return this.#unlogged.lastSeq(runId) ?? this.#options.log.lastSeq(runId);
  }

  /** Calls `follower` with each new event of the run once it is in the log; returns the unfollow. */
  follow(runId: string, follower: RunFollower): () => void {
    return this.#followers.follow(runId, follower);
  }

  /**
   * Aborts the session's run executing in this process (it stops with
   * `aborted`, as at shutdown); false when none executes here.
   *
   * @example
   * manager.abort({ sessionId: run.sessionId });
   */
  abort({ sessionId }: { sessionId: string }): boolean {
    const controller = this.#aborts.get(sessionId);
    if (controller === undefined) return false;
    controller.abort(new Error('the run was canceled'));
    return true;
  }

  /** True while the run executes in this process. */
  isActive(runId: string): boolean {
    return this.#runs.has(runId);
  }

  /**
   * True while events of the run this process published wait to be written
   * to the log (and only then reach followers): a run that has just ended
   * here (its status already says so) still has its last events to come.
   */
  hasUnloggedEvents(runId: string): boolean {
    return this.#unlogged.lastSeq(runId) !== undefined;
  }

  /** Resolves when no run executes any more (tests, shutdown). */
  async idle(): Promise<void> {
    await this.#tasks.idle();
  }

  /**
   * Waits up to `graceMs` for running runs, aborts those still running
   * (they stop with `aborted`), then stops listening.
   */
  async close({
    graceMs = 10_000,
    handOver,
  }: {
    graceMs?: number;
    /**
     * Instead of aborting its runs, the manager asks each to stop at its next
     * committed step without ending (`RunAgentOptions.handover`), waits up to
     * `graceMs` for them, then calls `handOver` with the runs that stopped so
     * (their leases are released for another node). A run still busy after
     * `graceMs` is left as a crash would leave it. Default: wait, then abort.
     */
    handOver?: (runIds: readonly string[]) => Promise<void>;
  } = {}): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (handOver !== undefined) this.#handover.abort(new Error('the server hands its runs over'));
    await Promise.race([this.idle(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    if (handOver === undefined) {
      this.#shutdown.abort(new Error('the server is shutting down'));
      await this.idle();
    }
    this.#stop();
    // The last events and statuses, waiting a little for a database another process holds locked.
    await this.#unlogged.drained(5000);
    const events = this.#unlogged.takeAll();
    await retryWhileBusy({ operation: 'event log', waitMs: 2000, write: () => this.#options.log.append(events) }).catch(
      (error: unknown) => this.#options.onError?.(error),
    );
    if (handOver !== undefined && this.#handedOver.size > 0) {
      await handOver([...this.#handedOver]).catch((error: unknown) => this.#options.onError?.(error));
    }
    this.#followers.deliver(events);
    await retryWhileBusy({ operation: 'run status', waitMs: 2000, write: () => this.#options.runs.flush() }).catch(
      (error: unknown) => this.#options.onError?.(error),
    );
  }

  /**
   * The store a run of this manager writes through: its beginning records
   * the server run in the same transaction (`onBegin`), and its end waits
   * until the run's terminal event has been published, so the status the
   * server keeps is written before the session leaves the run.
   */
  #sessionsForRuns({ onBegin }: { onBegin?: (begun: BegunRun) => unknown } = {}): SessionStore {
    return sessionsForRuns({
      sessions: this.#options.sessions,
      ...(onBegin === undefined ? {} : { onBegin }),
      ...(this.#options.offerSessionEnd === undefined ? {} : { offerEnd: this.#options.offerSessionEnd }),
      beforeEnd: async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          this.#bus.idle(),
          new Promise((resolve) => (timer = setTimeout(resolve, terminalEventWaitMs))),
        ]);
        clearTimeout(timer);
      },
    });
  }

  #runOptions({
    principal,
    locale,
    sessionId,
    sessions = this.#sessionsForRuns(),
  }: {
    principal: Principal;
    locale: Locale;
    sessionId: string;
    sessions?: SessionStore;
  }) {
    const { tools, gate, approvals, limits, idempotency, audit } = this.#options;
    const controller = new AbortController();
    this.#aborts.set(sessionId, controller);
    return {
      sessions,
      tools,
      model: watchModelCalls({
        model: this.#options.model(locale),
        onFailure: (failure) => this.#onModelFailure(sessionId, failure),
      }),
      principal,
      locale,
      events: this.#bus,
      signal: AbortSignal.any([this.#shutdown.signal, controller.signal]),
      handover: this.#handover.signal,
      gate,
      approvals,
      ...(limits === undefined ? {} : { limits }),
      ...(idempotency === undefined ? {} : { idempotency }),
      ...(audit === undefined ? {} : { audit }),
    };
  }

  #track({
    sessionId,
    runId,
    run,
    onEarlyFailure,
  }: {
    sessionId: string;
    runId: string | undefined;
    run: Promise<RunResult>;
    onEarlyFailure: (error: unknown) => void;
  }): void {
    const task = new SessionTask({
      runId,
      run,
      onFailure: async (task, error) => {
        if (RunHandedOverError.isInstance(error)) {
          // Not ended: another process resumes it from its last committed step.
          this.#handedOver.add(error.runId);
          return;
        }
        if (task.phase === 'starting' || task.runId === undefined) {
          onEarlyFailure(error);
          return;
        }
        await this.#bus.idle();
        this.#options.onError?.(error);
        const stream = this.#runs.stream(task.runId);
        if (stream !== undefined) {
          const body = { type: 'run:error', code: errorCode(error), text: eventTexts(stream.locale).runFailed };
          const failure = { ...failureOf(error), modelCall: modelCallOf(task.modelFailure) };
          this.#publish({ runId: task.runId, stream, body: body as ExternalEventBody, at: Date.now(), failure });
        }
      },
    });
    this.#tasks.add(sessionId, task, {
      afterSettled: () => {
        this.#aborts.delete(sessionId);
        if (task.resumeQueued && task.runId !== undefined) this.resume({ runId: task.runId });
      },
    });
  }

  #onEvent(event: AgentEvent): void {
    if (event.type === 'heartbeat') return;
    if (event.type === 'gap') {
      this.#options.onError?.(new Error(`events ${event.fromSeq}-${event.toSeq} of run ${event.runId} were lost`));
      return;
    }
    let stream = this.#runs.stream(event.runId);
    if (stream === undefined && event.type === 'run:start' && event.sessionId !== undefined) {
      stream = this.#begin(event.runId, event.sessionId);
    }
    if (stream === undefined) return;
    if (event.type === 'run:error' && event.code === 'session_conflict') {
      // Another process took the run over (this one stalled past its lease): it writes the run's events and
      // its end from here, so this process publishes nothing more for it and records no status.
      this.#runs.close(event.runId);
      const task = this.#tasks.get(stream.sessionId);
      if (task !== undefined && task.runId === event.runId) task.markFinished();
      this.#options.logger?.({
        level: 'warn',
        event: 'run_taken_over',
        runId: event.runId,
        sessionId: stream.sessionId,
      });
      return;
    }
    if (event.type === 'run:start') {
      const task = this.#tasks.get(stream.sessionId);
      task?.markRunning();
    }
    const { runId: _runId, seq: _seq, at: _at, ...body } = this.#runs.projector(stream.locale)(event);
    const failure: RunFailure | undefined =
      event.type === 'run:error'
        ? {
            code: event.code,
            message: event.message,
            at: event.at,
            modelCall: modelCallOf(this.#tasks.get(stream.sessionId)?.modelFailure),
          }
        : undefined;
    this.#publish({ runId: event.runId, stream, body: body as ExternalEventBody, at: event.at, failure });
  }

  /** A model call of the session's run failed: one log line now; the failure is stored if the run ends with it. */
  #onModelFailure(sessionId: string, failure: WatchedFailure): void {
    const task = this.#tasks.get(sessionId);
    if (task !== undefined) task.modelFailure = failure;
    const { error: _error, ...fields } = failure;
    this.#options.logger?.({
      level: 'error',
      event: 'model_call_failed',
      runId: task?.runId,
      sessionId,
      ...fields,
    });
  }

  /** A new run's `run:start` (its record was written with the run's beginning): tell `start` it began. */
  #begin(runId: string, sessionId: string): RunStream | undefined {
    const stream = this.#runs.begin(runId);
    if (stream === undefined) return undefined;
    const task = this.#tasks.get(sessionId);
    if (task !== undefined) task.runId = runId;
    return stream;
  }

  #publish({
    runId,
    stream,
    body,
    at,
    failure,
  }: {
    runId: string;
    stream: RunStream;
    body: ExternalEventBody;
    at: number;
    /** For `run:error`: why, stored with the run. */
    failure?: RunFailure | undefined;
  }): void {
    stream.seq += 1;
    const event = { ...body, runId, seq: stream.seq, at } as ExternalEvent;
    this.#unlogged.push(event);
    if (isTerminalEvent(event)) {
      this.#options.runs.setStatus(runId, event.type === 'run:end' ? event.stopReason : 'error', failure);
      this.#runs.close(runId);
      const task = this.#tasks.get(stream.sessionId);
      if (task !== undefined && task.runId === runId) task.markFinished();
    }
  }
}

/** A synchronous store's answer; an asynchronous store's promise here is a wiring error. */
function answered<Value>(value: Awaitable<Value>): Value {
  if (value instanceof Promise) {
    throw new TypeError(
      'replay and resumeInterrupted need a synchronous event log (SQLite); follow the PostgreSQL one with followRun',
    );
  }
  return value;
}

/** What the server stores about a run that failed with `error`. */
function failureOf(error: unknown): RunFailure {
  return {
    code: errorCode(error),
    message: error instanceof Error ? error.message : String(error),
    at: Date.now(),
    modelCall: undefined,
  };
}

/** The stored part of a watched model failure: no error object, no message (the failure has its own). */
function modelCallOf(failure: WatchedFailure | undefined): RunFailure['modelCall'] {
  if (failure === undefined) return undefined;
  const { model, endpoint, kind, status, attempts, decisions } = failure;
  return { model, endpoint, kind, status, attempts, decisions };
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : 'internal_error';
}
