import type pg from 'pg';
import { WorkCounts } from './work-counts.js';

/**
 * The transactions one pool committed, by what they did: a statement run
 * on its own is one transaction (`SELECT run_events`), and an explicit one
 * is named by the statements it ran, in order, repeats folded
 * (`SELECT sessions; INSERT session_messages; UPDATE sessions`). Read by
 * `GET /metrics` (`arbiter_postgres_transactions_total`) and the cluster
 * bench, so an operator sees what each transaction of a run is for.
 *
 * @example
 * transactionCountsOf(pool).add(['UPDATE sessions']);
 * transactionCountsOf(pool).prometheus(); // ['arbiter_postgres_transactions_total{work="UPDATE sessions"} 1']
 */
export class TransactionCounts {
  readonly #counts = new WorkCounts<string>({
    name: 'arbiter_postgres_transactions_total',
    help: 'Transactions this node committed, by the statements each ran.',
  });

  /** Counts one committed transaction that ran `shapes` (`statementShape`). */
  add(shapes: readonly string[]): void {
    this.#counts.add(shapes.filter((shape, index) => shape !== shapes[index - 1]).join('; ') || 'nothing');
  }

  /** Every kind of transaction so far, with its count. */
  entries(): [work: string, count: number][] {
    return this.#counts.entries();
  }

  /** The counts as Prometheus counter lines, with their HELP and TYPE. */
  prometheus(): string[] {
    return this.#counts.prometheus();
  }
}

const countsByPool = new WeakMap<pg.Pool, TransactionCounts>();

/** The counts of `pool`, shared by every `PostgresDatabase` on it. */
export function transactionCountsOf(pool: pg.Pool): TransactionCounts {
  let counts = countsByPool.get(pool);
  if (counts === undefined) {
    counts = new TransactionCounts();
    countsByPool.set(pool, counts);
  }
  return counts;
}

const shapes = new Map<string, string>();

/**
 * What a statement does, in two words: its verb and its table
 * (`INSERT session_messages`, `SELECT run_events`, `SELECT pg_advisory_xact_lock`);
 * only letters, digits, `_` and spaces, so it is safe as a label value.
 *
 * @example
 * statementShape('UPDATE sessions SET status = $1 WHERE session_id = $2'); // 'UPDATE sessions'
 */
export function statementShape(text: string): string {
  let shape = shapes.get(text);
  if (shape !== undefined) return shape;
  const verb = (/^\s*(\w+)/.exec(text)?.[1] ?? 'SQL').toUpperCase();
  const table =
    verb === 'SELECT' || verb === 'DELETE' || verb === 'WITH'
      ? (/\bFROM\s+(\w+)/i.exec(text)?.[1] ?? /^\s*SELECT\s+(\w+)\s*\(/i.exec(text)?.[1])
      : verb === 'INSERT'
        ? /\bINTO\s+(\w+)/i.exec(text)?.[1]
        : verb === 'UPDATE'
          ? /^\s*UPDATE\s+(\w+)/i.exec(text)?.[1]
          : undefined;
  shape = `${verb}${table === undefined ? '' : ` ${table}`}`.replace(/[^\w ]/g, '');
  // Texts built per filter are few; a cap keeps one-off SQL from growing the map for ever.
  if (shapes.size < 10_000) shapes.set(text, shape);
  return shape;
}
