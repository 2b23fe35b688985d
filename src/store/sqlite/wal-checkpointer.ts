import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * The WAL frames after which a connection whose WAL is checkpointed in the
 * background checkpoints it itself, as SQLite's `wal_autocheckpoint` does
 * at 1,000 frames by default: the backstop when writes never pause long
 * enough for a background pass to find the WAL fully copied (see
 * `WalCheckpointer`). About 32 MB of WAL at 4 KiB pages.
 */
export const backstopFrames = 8000;

/** Options of the background checkpoints (`openSqliteStore({ checkpoints })`). */
export interface WalCheckpointOptions {
  /** Start the thread this long after the store opened (a short-lived command never starts it). Default 1000. */
  readonly startAfterMs?: number;
  /** Between passes while writes keep coming. Default 10. */
  readonly busyIntervalMs?: number;
  /** Between passes once a pass found the WAL fully copied. Default 250. */
  readonly idleIntervalMs?: number;
}

/** What one background pass reported, the same as `PRAGMA wal_checkpoint(PASSIVE)`. */
export interface WalCheckpointPass {
  /** Frames in the WAL. */
  readonly log: number;
  /** Frames of them copied into the database file. */
  readonly checkpointed: number;
}

/**
 * The worker's whole program, evaluated as CommonJS in its own thread (a
 * source file would need a build step that a test runner transpiling
 * TypeScript does not make). It opens its own connection to the file and
 * runs `PRAGMA wal_checkpoint(PASSIVE)` in a loop: soon again while it
 * finds frames it did not copy (writes keep coming), slowly once the WAL
 * is all copied. `busy_timeout = 0`: a pass that finds another
 * checkpointer at work gives up at once and the next one tries again.
 */
const workerProgram = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let database;
let timer;
let closed = false;
const stop = (message) => {
  closed = true;
  if (timer !== undefined) clearTimeout(timer);
  if (message !== undefined) parentPort.postMessage({ kind: 'failed', message });
  if (database !== undefined && database.open) database.close();
  parentPort.close();
};
const pass = () => {
  timer = undefined;
  let done = false;
  try {
    const [row] = database.pragma('wal_checkpoint(PASSIVE)');
    done = row.busy === 0 && row.log === row.checkpointed;
    if (workerData.report) parentPort.postMessage({ kind: 'pass', log: row.log, checkpointed: row.checkpointed });
  } catch (error) {
    if (!error || (error.code !== 'SQLITE_BUSY' && error.code !== 'SQLITE_LOCKED')) {
      stop(String(error && error.message));
      return;
    }
  }
  if (!closed) timer = setTimeout(pass, done ? workerData.idleIntervalMs : workerData.busyIntervalMs);
};
parentPort.on('message', (message) => {
  if (message === 'close' && !closed) stop();
});
try {
  database = new Database(workerData.path, { fileMustExist: true });
  database.pragma('busy_timeout = 0');
} catch (error) {
  stop(String(error && error.message));
}
if (!closed) {
  parentPort.postMessage({ kind: 'ready' });
  pass();
}
`;

const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');

type WorkerMessage =
  | { readonly kind: 'ready' }
  | ({ readonly kind: 'pass' } & WalCheckpointPass)
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Checkpoints a SQLite file's WAL on a thread of its own, so that a commit
 * never waits for a checkpoint.
 *
 * A WAL database copies the pages its commits appended back into the
 * database file now and then; by default the connection that commits the
 * frame that takes the WAL past 1,000 frames does it, inside that commit,
 * and with `synchronous = NORMAL` the copy ends with two `fsync`s. On a
 * virtual disk those cost milliseconds: one commit in about a hundred
 * durable steps took 1-2 ms instead of 0.1, which put a durable run's
 * mean step at 1.7 times its median (measured: 335 against 194 µs, p90
 * 932 µs, on a 20-step run).
 *
 * Here a worker thread with its own connection runs passive checkpoints
 * (which never block a writer, and which SQLite serialises between
 * connections and processes); the store's connection only checkpoints
 * itself once the WAL reaches `backstopFrames`, which happens when writes
 * never pause long enough for a pass to find every frame copied (the WAL
 * can start over only then) and costs little, the worker having copied
 * all but the last frames. Crash safety is SQLite's own: a checkpoint
 * interrupted anywhere leaves the WAL as it was, and recovery replays it.
 *
 * The thread starts `startAfterMs` after the store opened (a command that
 * opens the store for a moment never starts one), never keeps the process
 * alive, and stops when the store closes.
 *
 * @example
 * const checkpoints = new WalCheckpointer({ database, path: '.arbiter/arbiter.db' });
 * // … commits …
 * checkpoints.close();
 */
export class WalCheckpointer {
  readonly #database: Database.Database;
  readonly #path: string;
  readonly #options: Required<WalCheckpointOptions>;
  readonly #onPass: ((pass: WalCheckpointPass) => void) | undefined;
  #worker: Worker | undefined;
  #startTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Why the background checkpoints stopped, if they did (the store went back to checkpointing inline). */
  #failure: string | undefined;

  constructor({
    database,
    path,
    options = {},
    onPass,
  }: {
    database: Database.Database;
    /** The database file the connection has open. */
    path: string;
    options?: WalCheckpointOptions;
    /** Told of every pass (tests, diagnostics). */
    onPass?: (pass: WalCheckpointPass) => void;
  }) {
    this.#database = database;
    this.#path = path;
    this.#options = {
      startAfterMs: options.startAfterMs ?? 1000,
      busyIntervalMs: options.busyIntervalMs ?? 10,
      idleIntervalMs: options.idleIntervalMs ?? 250,
    };
    this.#onPass = onPass;
    if (this.#options.startAfterMs <= 0) this.#start();
    else {
      this.#startTimer = setTimeout(() => this.#start(), this.#options.startAfterMs);
      this.#startTimer.unref();
    }
  }

  /** Whether the thread is running and the connection leaves checkpoints to it. */
  get running(): boolean {
    return this.#worker !== undefined && !this.#closed && this.#failure === undefined;
  }

  /** Why the background checkpoints stopped, if they did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Stops the thread; the connection checkpoints inline again. Closing the store calls it. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#startTimer !== undefined) clearTimeout(this.#startTimer);
    this.#inline();
    this.#worker?.postMessage('close');
  }

  #start(): void {
    this.#startTimer = undefined;
    if (this.#closed || !this.#database.open) return;
    const worker = new Worker(workerProgram, {
      eval: true,
      workerData: {
        driver: driverPath,
        path: this.#path,
        busyIntervalMs: this.#options.busyIntervalMs,
        idleIntervalMs: this.#options.idleIntervalMs,
        report: this.#onPass !== undefined,
      },
    });
    this.#worker = worker;
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'ready') {
        // Only now: until the thread runs, the connection goes on checkpointing as SQLite does by default.
        if (!this.#closed && this.#database.open) this.#database.pragma(`wal_autocheckpoint = ${backstopFrames}`);
      } else if (message.kind === 'pass') {
        this.#onPass?.({ log: message.log, checkpointed: message.checkpointed });
      } else this.#stop(message.message);
    });
    worker.on('error', (error) => this.#stop(error.message));
    worker.on('exit', (code) => {
      if (!this.#closed) this.#stop(`the checkpoint thread exited (code ${code})`);
    });
    // Last: on Node 20 attaching a 'message' listener refs the worker again, and a script that never
    // closes its store would then never exit.
    worker.unref();
  }

  #stop(reason: string): void {
    this.#failure ??= reason;
    this.#inline();
  }

  /** SQLite's default again: the connection checkpoints at 1,000 frames. */
  #inline(): void {
    if (this.#database.open) this.#database.pragma('wal_autocheckpoint = 1000');
  }
}
