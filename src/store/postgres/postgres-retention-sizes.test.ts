import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresBackend, type PostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

const day = 86_400_000;
const tables = ['sessions', 'session_messages', 'tool_results', 'run_events', 'audit_log'] as const;
const cluster = setUpPostgresCluster();

/** `count` sessions last touched at `at`, each with 4 messages, 1 tool result, a finished run of 5 events, 2 audit rows. */
async function seed(backend: PostgresBackend, { prefix, count, at }: { prefix: string; count: number; at: number }) {
  const series = `generate_series(0, ${count - 1}) AS i`;
  const id = `'${prefix}-' || i`;
  for (const statement of [
    `INSERT INTO sessions (session_id, created_at, updated_at) SELECT ${id}, $1::bigint, $1::bigint FROM ${series}`,
    `INSERT INTO session_messages (session_id, position, run_id, message, created_at)
     SELECT ${id}, p, 'run-' || ${id}, json_build_object('role', 'user', 'content', repeat('x', 200))::text, $1
     FROM ${series}, generate_series(0, 3) AS p`,
    `INSERT INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at)
     SELECT 'run-' || ${id}, 'call_1', ${id}, 'query_order', repeat('y', 230), '{"ok":true}', $1 FROM ${series}`,
    `INSERT INTO run_events (run_id, seq, type, at, event)
     SELECT 'run-' || ${id}, s, 'model:delta', $1::bigint + s, repeat('z', 150) FROM ${series}, generate_series(1, 5) AS s`,
    `INSERT INTO audit_log (at, session_id, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
       decision, rule, outcome, duration_ms)
     SELECT $1::bigint, ${id}, 'run-' || ${id}, 1, 'call_' || c, 'send_payment', 'irreversible', 'hash',
       json_build_object('amount_cents', 100, 'reference', repeat('r', 100))::text, 'auto_approved',
       'payment_under_100', 'ok', 1
     FROM ${series}, generate_series(1, 2) AS c`,
  ]) {
    await backend.pool.query(statement, [at]);
  }
}

/** Rows and `pg_total_relation_size` (heap, indexes, TOAST) of every retained table. */
async function sizes(backend: PostgresBackend): Promise<Record<string, { rows: number; bytes: number }>> {
  const entries = [];
  for (const table of tables) {
    const { rows } = await backend.pool.query<{ rows: string; bytes: string }>(
      `SELECT (SELECT count(*) FROM ${table}) AS rows, pg_total_relation_size('${table}'::regclass) AS bytes`,
    );
    entries.push([table, { rows: Number(rows[0]?.rows), bytes: Number(rows[0]?.bytes) }] as const);
  }
  return Object.fromEntries(entries);
}

describe.skipIf(cluster.skip)('retention on PostgreSQL', () => {
  const opened: PostgresBackend[] = [];
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });

  it('prunes a seeded database of 2,000 old and 200 young sessions, and no table grows', async () => {
    const now = Date.now();
    const backend = await openPostgresBackend({
      connectionString: cluster.connectionString,
      schema: cluster.freshSchema(),
      now: () => now,
    });
    opened.push(backend);
    await seed(backend, { prefix: 'old', count: 2000, at: now - 500 * day });
    await seed(backend, { prefix: 'young', count: 200, at: now - 5 * day });
    await backend.pool.query('VACUUM ANALYZE');
    const before = await sizes(backend);

    expect((await backend.sessions.purge({ olderThanDays: 400 })).sessionIds).toHaveLength(2000);
    expect(await backend.events.prune({ before: now - 400 * day })).toBe(10_000);
    expect((await backend.audit.purge({ olderThanDays: 400, by: 'retention-test' })).deleted).toBe(4000);
    const after = await sizes(backend);
    await backend.pool.query('VACUUM FULL');
    const vacuumed = await sizes(backend);

    console.log(
      'PostgreSQL table sizes (rows / pg_total_relation_size bytes), before → after prune → after VACUUM FULL',
    );
    console.table(
      Object.fromEntries(
        tables.map((table) => [
          table,
          {
            before: `${before[table]?.rows} / ${before[table]?.bytes}`,
            after: `${after[table]?.rows} / ${after[table]?.bytes}`,
            vacuumed: `${vacuumed[table]?.rows} / ${vacuumed[table]?.bytes}`,
          },
        ]),
      ),
    );
    expect(Object.fromEntries(tables.map((table) => [table, [before[table]?.rows, after[table]?.rows]]))).toEqual({
      sessions: [2200, 200],
      session_messages: [8800, 800],
      tool_results: [2200, 200],
      run_events: [11_000, 1000],
      audit_log: [4400, 401],
    });
    for (const table of tables) {
      expect(after[table]?.bytes).toBeLessThanOrEqual(before[table]?.bytes ?? 0);
      expect(vacuumed[table]?.bytes).toBeLessThan(before[table]?.bytes ?? 0);
    }
  });
});
