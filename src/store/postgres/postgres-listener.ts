import type pg from 'pg';
import { ConfigurationError } from '../../errors/configuration-error.js';
import type { PostgresDatabase } from './postgres-database.js';

const firstReconnectMs = 100;
const longestReconnectMs = 2000;

/** A channel name written into `LISTEN` unquoted: lower-case letters, digits and `_`, at most 63. */
const channelPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * One connection held for `LISTEN`, on a fixed channel and on channels
 * added and dropped while it runs (`listen`, `unlisten`), that outlives the
 * database: when the connection drops (a restart, a failover) it is
 * destroyed, a new one is opened after a pause that grows from 100 ms to
 * 2 s, `LISTEN` is issued again for every channel, and `onReconnected`
 * runs, because notifications sent while nobody listened are gone for good
 * (the caller reads what it may have missed). An error never escapes as an
 * unhandled `'error'` event.
 *
 * @example
 * const listener = await PostgresListener.open({ database, channel: 'arbiter_runs', onNotification: wake, onReconnected: wake });
 * await listener.listen('arbiter_run_events_0f3a');
 * await listener.close();
 */
export class PostgresListener {
  readonly #database: PostgresDatabase;
  /** Every channel listened on: what a new connection listens on again. */
  readonly #channels = new Set<string>();
  readonly #onNotification: (payload: string | undefined, senderProcessId: number, channel: string) => void;
  readonly #onReconnected: () => void;
  readonly #onError: (error: unknown) => void;
  #client: pg.PoolClient | undefined;
  /** Hands the listening connection back once, whichever of a drop and `close` comes first. */
  #release: (destroy: boolean) => void = () => {};
  /** Gives up the listening connection as broken and opens another (which listens on every channel again). */
  #drop: (error: unknown) => void = () => {};
  #pauseMs = 0;
  #closed = false;

  private constructor(options: {
    database: PostgresDatabase;
    channel: string | undefined;
    onNotification: (payload: string | undefined, senderProcessId: number, channel: string) => void;
    onReconnected: () => void;
    onError: (error: unknown) => void;
  }) {
    this.#database = options.database;
    if (options.channel !== undefined) this.#channels.add(checkedChannel(options.channel));
    this.#onNotification = options.onNotification;
    this.#onReconnected = options.onReconnected;
    this.#onError = options.onError;
  }

  /** Listens on `channel` (if given) now; the first connection's failure is thrown, later ones are retried. */
  static async open({
    database,
    channel,
    onNotification,
    onReconnected = () => {},
    onError = () => {},
  }: {
    database: PostgresDatabase;
    /** A plain identifier (`[a-z_][a-z0-9_]*`): it is written into `LISTEN` unquoted. Default: none yet (`listen`). */
    channel?: string;
    onNotification: (payload: string | undefined, senderProcessId: number, channel: string) => void;
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

  /**
   * Listens on `channel` too, from when this resolves: a notification sent
   * after that reaches `onNotification`. While the connection is being
   * replaced it resolves at once, and the new connection listens on it
   * (then `onReconnected` runs). A failed `LISTEN` (the connection lost
   * meanwhile, a cancelled or timed-out statement) gives up the connection:
   * its replacement listens on every channel, this one included, and
   * `onReconnected` tells the caller to read what it may have missed.
   */
  async listen(channel: string): Promise<void> {
    this.#channels.add(checkedChannel(channel));
    const client = this.#client;
    if (client === undefined) return;
    try {
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      // A live connection that did not take the LISTEN would never deliver the channel's notifications.
      if (this.#client === client) this.#drop(error);
    }
  }

  /** Stops listening on `channel` (its notifications stop once PostgreSQL has the `UNLISTEN`). */
  unlisten(channel: string): void {
    if (!this.#channels.delete(channel)) return;
    this.#client?.query(`UNLISTEN ${channel}`).catch(() => {});
  }

  /** Stops listening and hands the connection back. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    try {
      await client.query('UNLISTEN *');
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
      if (this.#channels.has(message.channel))
        this.#onNotification(message.payload, message.processId, message.channel);
    });
    client.on('error', drop);
    client.on('end', () => drop(new Error('the connection listening for notifications ended')));
    try {
      // Channels added while this connection was opened are listened on too, before it counts as listening.
      const listened = new Set<string>();
      for (;;) {
        const channels = [...this.#channels].filter((channel) => !listened.has(channel));
        if (channels.length === 0) break;
        await client.query(channels.map((channel) => `LISTEN ${channel}`).join('; '));
        for (const channel of channels) listened.add(channel);
      }
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
    this.#drop = drop;
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

function checkedChannel(channel: string): string {
  if (!channelPattern.test(channel))
    throw new ConfigurationError({
      setting: 'channel',
      message: `not a plain channel name: ${JSON.stringify(channel)}`,
    });
  return channel;
}
