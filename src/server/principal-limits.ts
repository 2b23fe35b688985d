import type { Principal } from '../core/principal.js';
import { HttpError } from '../errors/http-error.js';
import { ServerConfigError } from '../errors/server-config-error.js';

/** How much one principal (tenant + user) may hold or start; each a whole number from 1, or `Infinity` for no limit. */
export interface PrincipalLimitOptions {
  /** SSE streams open at once. Default 10. */
  readonly maxStreams?: number;
  /** Sessions created in any 60 s. Default 20. */
  readonly sessionsPerMinute?: number;
  /** Messages sent (runs started) in any 60 s. Default 30. */
  readonly messagesPerMinute?: number;
}

/** The defaults of `PrincipalLimitOptions`. */
export const defaultPrincipalLimits = {
  maxStreams: 10,
  sessionsPerMinute: 20,
  messagesPerMinute: 30,
} as const satisfies Required<PrincipalLimitOptions>;

const windowMs = 60_000;

/**
 * Per-principal limits of the server, each refused with a 429 and a
 * `Retry-After` (seconds): concurrent SSE streams, sessions created and
 * messages sent per minute (a sliding window of 60 s). Keys are tenant +
 * user, so two tenants' users with the same id do not share a budget.
 * Memory is bounded by the configured principals times the limits.
 *
 * @example
 * const limits = new PrincipalLimits({ maxStreams: 10 });
 * const release = limits.openStream(principal); // throws HttpError 429 beyond the limit
 * try { await stream() } finally { release() }
 */
export class PrincipalLimits {
  readonly #maxStreams: number;
  readonly #sessions: SlidingWindow;
  readonly #messages: SlidingWindow;
  readonly #streams = new Map<string, number>();

  constructor({
    maxStreams = defaultPrincipalLimits.maxStreams,
    sessionsPerMinute = defaultPrincipalLimits.sessionsPerMinute,
    messagesPerMinute = defaultPrincipalLimits.messagesPerMinute,
    now = Date.now,
  }: PrincipalLimitOptions & { now?: () => number } = {}) {
    for (const [setting, value] of Object.entries({ maxStreams, sessionsPerMinute, messagesPerMinute })) {
      if (!(Number.isInteger(value) && value >= 1) && value !== Number.POSITIVE_INFINITY) {
        throw new ServerConfigError({
          setting: `principalLimits.${setting}`,
          message: `principal limit ${setting} must be a whole number from 1 (or Infinity), got ${value}`,
        });
      }
    }
    this.#maxStreams = maxStreams;
    this.#sessions = new SlidingWindow({ limit: sessionsPerMinute, now });
    this.#messages = new SlidingWindow({ limit: messagesPerMinute, now });
  }

  /** Counts one open stream; the returned function (idempotent) closes it. */
  openStream(principal: Principal): () => void {
    const key = keyOf(principal);
    const open = this.#streams.get(key) ?? 0;
    if (open >= this.#maxStreams) {
      throw tooMany({
        reason: 'too_many_streams',
        message: `at most ${this.#maxStreams} event streams may be open at once per user; close one first`,
        retryAfterSeconds: 1,
      });
    }
    this.#streams.set(key, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#streams.get(key) ?? 1) - 1;
      if (left <= 0) this.#streams.delete(key);
      else this.#streams.set(key, left);
    };
  }

  /** Counts a session about to be created, or throws the 429. */
  createSession(principal: Principal): void {
    const retryAfterSeconds = this.#sessions.take(keyOf(principal));
    if (retryAfterSeconds === undefined) return;
    throw tooMany({
      reason: 'too_many_sessions',
      message: `at most ${this.#sessions.limit} sessions may be created per minute per user`,
      retryAfterSeconds,
    });
  }

  /** Counts a message about to start a run, or throws the 429. */
  sendMessage(principal: Principal): void {
    const retryAfterSeconds = this.#messages.take(keyOf(principal));
    if (retryAfterSeconds === undefined) return;
    throw tooMany({
      reason: 'too_many_messages',
      message: `at most ${this.#messages.limit} messages may be sent per minute per user`,
      retryAfterSeconds,
    });
  }

  /** Streams a principal holds now. */
  openStreams(principal: Principal): number {
    return this.#streams.get(keyOf(principal)) ?? 0;
  }
}

/** At most `limit` takes per key in any 60 s; a refused take is not counted. */
class SlidingWindow {
  readonly limit: number;
  readonly #now: () => number;
  readonly #taken = new Map<string, number[]>();

  constructor({ limit, now }: { limit: number; now: () => number }) {
    this.limit = limit;
    this.#now = now;
  }

  /** `undefined` when taken; otherwise the seconds until the oldest take leaves the window. */
  take(key: string): number | undefined {
    const now = this.#now();
    const recent = (this.#taken.get(key) ?? []).filter((at) => at > now - windowMs);
    if (recent.length >= this.limit) {
      this.#taken.set(key, recent);
      const oldest = recent[0] ?? now;
      return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    }
    recent.push(now);
    this.#taken.set(key, recent);
    return undefined;
  }
}

/** The key a principal's limits are counted under: tenant and user. */
export function keyOf(principal: Principal): string {
  return JSON.stringify([principal.tenantId, principal.userId]);
}

/** The 429 a principal over one of its limits gets, with `Retry-After`. */
export function tooMany({
  reason,
  message,
  retryAfterSeconds,
}: {
  reason: string;
  message: string;
  retryAfterSeconds: number;
}): HttpError {
  return new HttpError({
    status: 429,
    reason,
    message,
    details: { retryAfterSeconds },
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}
