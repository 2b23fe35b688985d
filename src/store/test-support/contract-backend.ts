import { afterEach } from 'vitest';
import type { Awaitable } from '../../core/awaitable.js';

export type { Awaitable } from '../../core/awaitable.js';

/**
 * What a contract suite hands the backend factory: the clock every member must read.
 *
 * @example
 * const create = ({ now, approvalTtlMs }: ContractOptions) => openSqliteBackend({ path: ':memory:', now, approvalTtlMs });
 */
export interface ContractOptions {
  /** Milliseconds since the epoch, moved forward by the suite (expiry, TTLs, ordering by time). */
  readonly now: () => number;
  /** How long a pending approval waits before it is denied as timed out: one minute in the suites. */
  readonly approvalTtlMs: number;
  /** How long an approval, once given, may be used: two minutes in the suites. */
  readonly approvalGrantTtlMs: number;
  /** How long a silent holder's history reservation lasts, on the database's clock; the store's default when absent. */
  readonly historyLeaseMs?: number;
}

/**
 * A backend a suite opened, with its clock.
 *
 * @example
 * const { backend, clock } = await open();
 * clock.now += 60_000;
 */
export interface OpenedBackend<Backend> {
  readonly backend: Backend;
  readonly clock: { now: number };
}

/**
 * Builds a fresh, empty backend for one test: SQLite `:memory:` today, a PostgreSQL schema later.
 *
 * @example
 * const sqlite: CreateBackend<SqliteBackend> = (options) => openSqliteBackend({ path: ':memory:', ...options });
 */
export type CreateBackend<Backend> = (options: ContractOptions) => Awaitable<Backend & { close?(): Awaitable<void> }>;

/**
 * Opens a fresh backend per test with a clock the test moves, and closes
 * every backend it opened after each test. Call it inside `describe`.
 *
 * @example
 * const open = openFreshBackends(createBackend);
 * it('…', async () => {
 *   const { backend, clock } = await open();
 * });
 */
export function openFreshBackends<Backend>(
  create: CreateBackend<Backend>,
): (settings?: Pick<ContractOptions, 'historyLeaseMs'>) => Promise<OpenedBackend<Backend>> {
  const opened: { close?(): Awaitable<void> }[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close?.();
  });
  return async (settings = {}) => {
    const clock = { now: 1_000_000 };
    const backend = await create({
      now: () => clock.now,
      approvalTtlMs: 60_000,
      approvalGrantTtlMs: 120_000,
      ...settings,
    });
    opened.push(backend);
    return { backend, clock };
  };
}
