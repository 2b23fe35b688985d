import type { WatchedFailure } from './watch-model-calls.js';

/**
 * Where a session's run executing in this process stands: `starting` until
 * its `run:start` went out (a failure then is the caller's to report),
 * `running` until its terminal event went out (a failure then ends the
 * stream with `run:error`), then `finished` while the task settles the session.
 */
export type SessionTaskPhase = 'starting' | 'running' | 'finished';

/**
 * The run of a session executing in this process, from its start or
 * resumption until its promise settles.
 *
 * @example
 * const task = new SessionTask({ runId, run, onFailure: (task, error) => report(task.phase, error) });
 * task.markRunning(); // at its run:start
 * task.markFinished(); // at its terminal event
 */
export class SessionTask {
  /** The run's id; undefined for a new run until it has begun. */
  runId: string | undefined;
  /** A model call of this stretch of the run failed: stored with the run when it ends with `run:error`. */
  modelFailure: WatchedFailure | undefined = undefined;
  /** Settles once the run did and its failure, if any, was handled. */
  readonly done: Promise<void>;
  #phase: SessionTaskPhase = 'starting';
  #resumeQueued = false;

  constructor({
    runId,
    run,
    onFailure,
  }: {
    runId: string | undefined;
    run: Promise<unknown>;
    /** The run rejected; `done` settles after what this returns. */
    onFailure: (task: SessionTask, error: unknown) => void | Promise<void>;
  }) {
    this.runId = runId;
    this.done = run.then(
      () => {},
      (error: unknown) => onFailure(this, error),
    );
  }

  get phase(): SessionTaskPhase {
    return this.#phase;
  }

  /** A decision came in while the run was still stopping: resume it once it has. */
  get resumeQueued(): boolean {
    return this.#resumeQueued;
  }

  /** Its `run:start` went out. */
  markRunning(): void {
    if (this.#phase === 'starting') this.#phase = 'running';
  }

  /** Its terminal event went out; the task is only settling the session. */
  markFinished(): void {
    this.#phase = 'finished';
  }

  /** Resume the run once this task has settled. */
  queueResume(): void {
    this.#resumeQueued = true;
  }
}

/**
 * The session tasks executing in this process, one per session at most,
 * and the starts under way (a session's second start waits for its first).
 *
 * @example
 * const tasks = new SessionTasks();
 * await tasks.startable(sessionId);
 * const started = tasks.beginStart(sessionId);
 * try { tasks.add(sessionId, task, { afterSettled: () => {} }); } finally { started(); }
 */
export class SessionTasks {
  readonly #tasks = new Map<string, SessionTask>();
  readonly #starting = new Map<string, Promise<void>>();

  /** The session's task, if it has one here. */
  get(sessionId: string): SessionTask | undefined {
    return this.#tasks.get(sessionId);
  }

  /**
   * Adds the session's task; it is removed once settled, and then
   * `afterSettled` runs.
   */
  add(sessionId: string, task: SessionTask, { afterSettled }: { afterSettled: () => void }): void {
    this.#tasks.set(sessionId, task);
    void task.done.finally(() => {
      if (this.#tasks.get(sessionId) === task) this.#tasks.delete(sessionId);
      afterSettled();
    });
  }

  /** Resolves once no other start of the session is under way and a finished run of it has settled. */
  async startable(sessionId: string): Promise<void> {
    for (;;) {
      const task = this.#tasks.get(sessionId);
      if (task?.phase === 'finished') await task.done;
      const other = this.#starting.get(sessionId);
      if (other === undefined) return;
      await other.catch(() => {});
    }
  }

  /** Whether a start of the session is under way here. */
  isStarting(sessionId: string): boolean {
    return this.#starting.has(sessionId);
  }

  /** Marks a start of the session under way; call the returned function when it is over. */
  beginStart(sessionId: string): () => void {
    let settle = () => {};
    this.#starting.set(
      sessionId,
      new Promise<void>((resolve) => {
        settle = resolve;
      }),
    );
    return () => {
      this.#starting.delete(sessionId);
      settle();
    };
  }

  /** Resolves when no task executes any more. */
  async idle(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.all([...this.#tasks.values()].map((task) => task.done));
  }
}
