import { randomUUID } from 'node:crypto';
import type { Principal } from '../core/principal.js';
import { ClusterWorkCounts } from '../store/postgres/cluster-work-counts.js';
import { namedStatement } from '../store/postgres/named-statement.js';
import type { PostgresDatabase } from '../store/postgres/postgres-database.js';
import { defaultPrincipalLimits, keyOf, type PrincipalLimitOptions, tooMany } from './principal-limits.js';
import type { ServerLimits } from './server-storage.js';

const windowMs = 60_000;
const databaseNow = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/**
 * Each check is one call of a function of migration 72, prepared once per
 * connection: the lock, the count and the insert in one round trip and one
 * transaction.
 */
const takeRequest = namedStatement('SELECT arbiter_take_request($1, $2, $3, $4) AS retry');
const openStream = namedStatement('SELECT arbiter_open_stream($1, $2, $3, $4, $5, $6::text[]) AS opened');
const closeStreams = namedStatement('DELETE FROM server_streams WHERE stream_id = ANY($1::text[])');
/** How long a closed stream's slot waits to be given back with the next stream opened here, or alone. */
const releaseGatherMs = 100;
const renewStreams = namedStatement(`UPDATE server_streams SET expires_at = ${databaseNow} + $2 WHERE node_id = $1`);

/** A limit as the functions take it (an integer): no limit is the largest. */
function asLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.min(limit, 2_147_483_647) : 2_147_483_647;
}

/**
 * Per-principal limits counted in the database every node shares, so a
 * user who spreads requests over three nodes gets the limits of one:
 * messages and sessions per minute (one row per request in
 * `principal_requests`, a sliding minute), and event streams open at once
 * (one row per stream in `server_streams`, owned by its node and kept alive
 * by it: a node that dies stops renewing, and its streams stop counting
 * after `streamTtlMs`). Each check takes a transaction-level advisory lock
 * on the principal and the kind, so concurrent requests on any node count
 * one at a time; it is one call of a database function (migration 72),
 * one round trip. Times are the database's clock.
 *
 * @example
 * const limits = new PostgresPrincipalLimits({ database, nodeId, messagesPerMinute: 30 });
 * await limits.sendMessage(principal); // throws the 429 HttpError beyond
 */
export class PostgresPrincipalLimits implements ServerLimits {
  readonly #database: PostgresDatabase;
  readonly #nodeId: string;
  readonly #streamTtlMs: number;
  /** Streams opened on this node and not yet released. */
  #openStreams = 0;
  /** Streams closed here whose rows are not deleted yet: with the next `openStream`, or within `releaseGatherMs`. */
  #closed: string[] = [];
  #releasing: ReturnType<typeof setTimeout> | undefined;
  /** When `renewStreams` last wrote (ms since the epoch). */
  #renewedAt = 0;
  readonly #maxStreams: number;
  readonly #sessionsPerMinute: number;
  readonly #messagesPerMinute: number;
  readonly #counts: ClusterWorkCounts;

  constructor({
    database,
    nodeId,
    streamTtlMs = 30_000,
    maxStreams = defaultPrincipalLimits.maxStreams,
    sessionsPerMinute = defaultPrincipalLimits.sessionsPerMinute,
    messagesPerMinute = defaultPrincipalLimits.messagesPerMinute,
    counts = new ClusterWorkCounts(),
  }: PrincipalLimitOptions & {
    database: PostgresDatabase;
    /** This node: its streams are renewed by `renewStreams` and counted until they lapse. */
    nodeId: string;
    /** How long a stream counts after its node last renewed it. Default 30 s. */
    streamTtlMs?: number;
    /** Where the stream renewals are counted (`GET /metrics`). */
    counts?: ClusterWorkCounts;
  }) {
    this.#database = database;
    this.#nodeId = nodeId;
    this.#streamTtlMs = streamTtlMs;
    this.#maxStreams = maxStreams;
    this.#sessionsPerMinute = sessionsPerMinute;
    this.#messagesPerMinute = messagesPerMinute;
    this.#counts = counts;
  }

  async openStream(principal: Principal): Promise<() => void> {
    const key = keyOf(principal);
    const streamId = randomUUID();
    const closed = this.#closed.splice(0);
    let rows: { opened: boolean }[];
    try {
      ({ rows } = await this.#database.query<{ opened: boolean }>(openStream, [
        streamId,
        key,
        this.#nodeId,
        this.#streamTtlMs,
        asLimit(this.#maxStreams),
        closed,
      ]));
    } catch (error) {
      this.#release(closed);
      throw error;
    }
    if (rows[0]?.opened !== true) {
      throw tooMany({
        reason: 'too_many_streams',
        message: `at most ${this.#maxStreams} event streams may be open at once per user; close one first`,
        retryAfterSeconds: 1,
      });
    }
    this.#openStreams += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#openStreams -= 1;
      this.#release([streamId]);
    };
  }

  /**
   * Gives closed streams' slots back: with the next stream this node opens
   * (one call), or within `releaseGatherMs` on their own, several at once.
   * A delete that fails leaves rows that stop counting once this node no
   * longer renews them.
   */
  #release(streamIds: readonly string[]): void {
    if (streamIds.length === 0) return;
    this.#closed.push(...streamIds);
    if (this.#releasing !== undefined) return;
    this.#releasing = setTimeout(() => {
      this.#releasing = undefined;
      const closed = this.#closed.splice(0);
      if (closed.length > 0) this.#database.query(closeStreams, [closed]).catch(() => {});
    }, releaseGatherMs);
    this.#releasing.unref();
  }

  async createSession(principal: Principal): Promise<void> {
    const retryAfterSeconds = await this.#take(keyOf(principal), 'session', this.#sessionsPerMinute);
    if (retryAfterSeconds === undefined) return;
    throw tooMany({
      reason: 'too_many_sessions',
      message: `at most ${this.#sessionsPerMinute} sessions may be created per minute per user`,
      retryAfterSeconds,
    });
  }

  async sendMessage(principal: Principal): Promise<void> {
    const retryAfterSeconds = await this.#take(keyOf(principal), 'message', this.#messagesPerMinute);
    if (retryAfterSeconds === undefined) return;
    throw tooMany({
      reason: 'too_many_messages',
      message: `at most ${this.#messagesPerMinute} messages may be sent per minute per user`,
      retryAfterSeconds,
    });
  }

  /**
   * Keeps this node's open streams counted for another `streamTtlMs`; call
   * well within it. Writes only when the node has streams open and a third
   * of the time to live has passed since the last renewal: an idle node
   * sends nothing.
   */
  async renewStreams(): Promise<void> {
    const now = Date.now();
    if (this.#openStreams === 0 || now - this.#renewedAt < this.#streamTtlMs / 3) return;
    this.#renewedAt = now;
    this.#counts.add('stream renewal');
    await this.#database.query(renewStreams, [this.#nodeId, this.#streamTtlMs]);
  }

  /** `undefined` when taken; otherwise the seconds until the oldest request leaves the window. */
  async #take(key: string, kind: string, limit: number): Promise<number | undefined> {
    if (limit === Number.POSITIVE_INFINITY) return undefined;
    const { rows } = await this.#database.query<{ retry: number | null }>(takeRequest, [
      key,
      kind,
      windowMs,
      asLimit(limit),
    ]);
    return rows[0]?.retry ?? undefined;
  }
}
