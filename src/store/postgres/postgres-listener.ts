import type pg from 'pg';
import type { PostgresDatabase } from './postgres-database.js';

const firstReconnectMs = 100;
const longestReconnectMs = 2000;

/**
 * One connection held for `LISTEN` on one channel, that outlives the
 * database: when the connection drops (a restart, a failover) it is
 * destroyed, a new one is opened after a pause that grows from 100 ms to
 * 2 s, `LISTEN` is issued again, and `onReconnected` runs, because
 * notifications sent while nobody listened are gone for good (the caller
 * reads what it may have missed). An error never escapes as an unhandled
 * `'error'` event.
 *
 * @example
 * const listener = await PostgresListener.open({ database, channel: 'arbiter_runs', onNotification: wake, onReconnected: wake });
 * await listener.close();
 */
export class PostgresListener {
  readonly #database: PostgresDatabase;
  readonly #channel: string;
  readonly #onNotification: (payload: string | undefined, senderProcessId: number) => void;
  readonly #onReconnected: () => void;
  readonly #onError: (error: unknown) => void;
  #client: pg.PoolClient | undefined;
  /** Hands the listening connection back once, whichever of a drop and `close` comes first. */
  #release: (destroy: boolean) => void = () => {};
  #pauseMs = 0;
  #closed = false;

  private constructor(options: {
    database: PostgresDatabase;
    channel: string;
    onNotification: (payload: string | undefined, senderProcessId: number) => void;
    onReconnected: () => void;
    onError: (error: unknown) => void;
  }) {
    this.#database = options.database;
    this.#channel = options.channel;
    this.#onNotification = options.onNotification;
    this.#onReconnected = options.onReconnected;
    this.#onError = options.onError;
  }

  /** Listens on `channel` now; the first connection's failure is thrown, later ones are retried. */
  static async open({
    database,
    channel,
    onNotification,
    onReconnected = () => {},
    onError = () => {},
  }: {
    database: PostgresDatabase;
    /** A plain identifier: it is written into `LISTEN` unquoted. */
    channel: string;
    onNotification: (payload: string | undefined, senderProcessId: number) => void;
    /** After a dropped connection was replaced: whatever was notified meanwhile was lost. */
    onReconnected?: () => void;
    /** Told of a dropped connection and of each failed try to replace it. */
    onError?: (error: unknown) => void;
  }): Promise<PostgresListener> {
    const listener = new PostgresListener({ database, channel, onNotification, onReconnected, onError });
    await listener.#listen();
    return listener;
  }

  /** True while a connection listens (false between a drop and its replacement). */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  /** Stops listening and hands the connection back. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    try {
      await client.query(`UNLISTEN ${this.#channel}`);
      this.#release(false);
    } catch {
      this.#release(true);
    }
  }

  async #listen(): Promise<void> {
    const client = await this.#database.connect();
    let released = false;
    const release = (destroy: boolean) => {
      if (released) return;
      released = true;
      client.release(destroy);
    };
    const drop = (error: unknown) => {
      if (released) return;
      release(true);
      if (this.#client === client) this.#client = undefined;
      if (this.#closed) return;
      this.#onError(error);
      this.#reconnect();
    };
    client.on('notification', (message) => {
      // With the backend that sent it: a node can tell its own notifications from the others'.
      if (message.channel === this.#channel) this.#onNotification(message.payload, message.processId);
    });
    client.on('error', drop);
    client.on('end', () => drop(new Error(`the connection listening on ${this.#channel} ended`)));
    try {
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      release(true);
      throw error;
    }
    if (this.#closed) {
      release(true);
      return;
    }
    this.#client = client;
    this.#release = release;
    this.#pauseMs = 0;
  }

  #reconnect(): void {
    this.#pauseMs = Math.min(longestReconnectMs, Math.max(firstReconnectMs, this.#pauseMs * 2));
    const timer = setTimeout(() => {
      if (this.#closed) return;
      this.#listen().then(
        () => {
          if (!this.#closed) this.#onReconnected();
        },
        (error: unknown) => {
          if (this.#closed) return;
          this.#onError(error);
          this.#reconnect();
        },
      );
    }, this.#pauseMs);
    timer.unref();
  }
}
