import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteBackend, type SqliteBackend } from './open-sqlite-backend.js';

const day = 86_400_000;
const tables = ['sessions', 'session_messages', 'tool_results', 'run_events', 'audit_log'] as const;
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** `count` sessions last touched at `at`, each with 4 messages, 1 tool result, a finished run of 5 events, 2 audit rows. */
function seed(backend: SqliteBackend, { prefix, count, at }: { prefix: string; count: number; at: number }): void {
  const { database } = backend;
  const session = database.prepare('INSERT INTO sessions (session_id, created_at, updated_at) VALUES (?, ?, ?)');
  const message = database.prepare(
    'INSERT INTO session_messages (session_id, position, run_id, message, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const toolResult = database.prepare(
    `INSERT INTO tool_results (run_id, tool_call_id, session_id, tool, content, outcome, created_at)
     VALUES (?, 'call_1', ?, 'query_order', ?, '{"ok":true}', ?)`,
  );
  const event = database.prepare('INSERT INTO run_events (run_id, seq, type, at, event) VALUES (?, ?, ?, ?, ?)');
  database.transaction(() => {
    for (let index = 0; index < count; index += 1) {
      const sessionId = `${prefix}-${index}`;
      const runId = `run-${sessionId}`;
      session.run(sessionId, at, at);
      for (let position = 0; position < 4; position += 1) {
        message.run(sessionId, position, runId, JSON.stringify({ role: 'user', content: 'x'.repeat(200) }), at);
      }
      toolResult.run(runId, sessionId, JSON.stringify({ order: 'SO1', status: 'shipped', note: 'y'.repeat(200) }), at);
      for (let seq = 1; seq <= 5; seq += 1) {
        event.run(
          runId,
          seq,
          'model:delta',
          at + seq,
          JSON.stringify({ type: 'model:delta', runId, seq, text: 'z'.repeat(100) }),
        );
      }
      for (const toolCallId of ['call_1', 'call_2']) {
        backend.audit.append({
          at,
          sessionId,
          runId,
          step: 1,
          toolCallId,
          tool: 'send_payment',
          sideEffect: 'irreversible',
          argumentsHash: 'hash',
          arguments: { amount_cents: 100, reference: 'r'.repeat(100) },
          decision: 'auto_approved',
          rule: 'payment_under_100',
          approver: undefined,
          outcome: 'ok',
          durationMs: 1,
        });
      }
    }
  })();
}

/** Rows and pages (tables with their indexes, from `dbstat`) of every retained table. */
function sizes(backend: SqliteBackend): Record<string, { rows: number; pages: number; bytes: number }> {
  const pages = new Map(
    (
      backend.database
        .prepare(
          `SELECT m.tbl_name AS name, count(*) AS pages, sum(d.pgsize) AS bytes
           FROM dbstat d JOIN sqlite_master m ON m.name = d.name GROUP BY m.tbl_name`,
        )
        .all() as { name: string; pages: number; bytes: number }[]
    ).map((row) => [row.name, row]),
  );
  return Object.fromEntries(
    tables.map((table) => [
      table,
      {
        rows: (backend.database.prepare(`SELECT count(*) AS count FROM ${table}`).get() as { count: number }).count,
        pages: pages.get(table)?.pages ?? 0,
        bytes: pages.get(table)?.bytes ?? 0,
      },
    ]),
  );
}

/** The database's pages (PRAGMA page_count): its size, whether or not the WAL was checkpointed yet. */
function databasePages(backend: SqliteBackend): number {
  return backend.database.pragma('page_count', { simple: true }) as number;
}

describe('retention on SQLite', () => {
  it('prunes a seeded database of 2,000 old and 200 young sessions, and no table grows', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-retention-'));
    directories.push(directory);
    const path = join(directory, 'arbiter.db');
    const now = Date.now();
    const backend = openSqliteBackend({ path, now: () => now });
    try {
      seed(backend, { prefix: 'old', count: 2000, at: now - 500 * day });
      seed(backend, { prefix: 'young', count: 200, at: now - 5 * day });
      backend.audit.flush();
      const before = sizes(backend);
      const fileBefore = databasePages(backend);

      expect((await backend.sessions.purge({ olderThanDays: 400 })).sessionIds).toHaveLength(2000);
      expect(backend.events.prune({ before: now - 400 * day })).toBe(10_000);
      expect(backend.audit.purge({ olderThanDays: 400, by: 'retention-test' }).deleted).toBe(4000);
      const after = sizes(backend);
      backend.database.exec('VACUUM');
      const vacuumed = sizes(backend);
      const fileAfter = databasePages(backend);

      console.log(
        'SQLite table sizes (rows / pages / bytes), before → after prune → after VACUUM; database',
        `${fileBefore} → ${fileAfter} pages after VACUUM`,
      );
      console.table(
        Object.fromEntries(
          tables.map((table) => [
            table,
            {
              before: `${before[table]?.rows} / ${before[table]?.pages} / ${before[table]?.bytes}`,
              after: `${after[table]?.rows} / ${after[table]?.pages} / ${after[table]?.bytes}`,
              vacuumed: `${vacuumed[table]?.rows} / ${vacuumed[table]?.pages} / ${vacuumed[table]?.bytes}`,
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
        expect(after[table]?.pages).toBeLessThanOrEqual(before[table]?.pages ?? 0);
        expect(vacuumed[table]?.pages).toBeLessThan(before[table]?.pages ?? 0);
      }
      expect(fileAfter).toBeLessThan(fileBefore);
    } finally {
      backend.close();
    }
  });
});
