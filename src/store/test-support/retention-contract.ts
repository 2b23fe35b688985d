import { describe, expect, it } from 'vitest';
import { AuditRetentionError } from '../../errors/audit-retention-error.js';
import type { EventLog } from '../../events/event-log.js';
import type { ExternalEvent } from '../../events/external-event.js';
import type { AuditEntry, AuditLog } from '../../gate/audit-log.js';
import {
  type AuditArchive,
  type AuditPurgeResult,
  auditPurgeTool,
  auditRetentionFloorDays,
} from '../../gate/audit-retention.js';
import type { AuditRecord } from '../audit-rows.js';
import type { SessionStore } from '../session-store.js';
import { type Awaitable, type CreateBackend, openFreshBackends } from './contract-backend.js';

const day = 86_400_000;

/** What the retention suite needs of a backend: its stores, and a way around them to the tables. */
export interface RetentionBackend {
  readonly audit: AuditLog & {
    purge(request: { olderThanDays: number; by: string; archive?: AuditArchive }): Awaitable<AuditPurgeResult>;
    listAudit(): Awaitable<readonly AuditRecord[]>;
  };
  readonly events: EventLog;
  readonly sessions: SessionStore;
  /** Runs one statement on the backend's database as any application could, outside the stores. */
  sql(statement: string): Promise<void>;
  /** How many rows a table holds. */
  count(table: string): Promise<number>;
}

const auditRow = (toolCallId: string, at: number): AuditEntry => ({
  at,
  sessionId: 'session-a',
  runId: 'run-a',
  step: 1,
  toolCallId,
  tool: 'send_payment',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 100 },
  decision: 'auto_approved',
  rule: 'payment_under_100',
  approver: undefined,
  outcome: 'ok',
  durationMs: 1,
});

const runEvents = (runId: string, count: number, at: number): ExternalEvent[] =>
  Array.from({ length: count }, (_unused, index) =>
    index === 0
      ? { type: 'run:start', runId, seq: 1, at }
      : { type: 'model:delta', runId, seq: index + 1, at: at + index, step: 1, text: `part ${index}` },
  );

/**
 * Retention on a whole backend: the audit log lets go of rows older than
 * its retention through `purge` alone (young rows stay, a cutoff below the
 * retention is refused, a plain DELETE or UPDATE is still refused after a
 * purge, and the purge is itself audited); the event log prunes finished
 * runs only; a session purge takes the session's messages and tool results
 * with it.
 *
 * @example
 * describeRetentionContract('SQLite', (options) => withSql(openSqliteBackend({ path: ':memory:', ...options })));
 */
export function describeRetentionContract(name: string, createBackend: CreateBackend<RetentionBackend>): void {
  describe(`${name} (retention contract)`, () => {
    const open = openFreshBackends(createBackend);

    it('purges audit rows older than the cutoff, keeps younger ones, and audits the purge', async () => {
      const { backend, clock } = await open();
      clock.now = 1000 * day;
      await backend.audit.append(auditRow('old_1', 10 * day));
      await backend.audit.append(auditRow('old_2', 500 * day));
      await backend.audit.append(auditRow('young', 700 * day));
      const archived: AuditEntry[] = [];
      const result = await backend.audit.purge({
        olderThanDays: 400,
        by: 'retention-job',
        archive: { location: 'archive.jsonl', write: (rows) => void archived.push(...rows) },
      });
      expect(result).toEqual({ before: 600 * day, deleted: 2 });
      expect(archived.map((row) => row.toolCallId)).toEqual(['old_1', 'old_2']);
      const rows = await backend.audit.listAudit();
      expect(rows.map((row) => row.toolCallId)).toEqual(['young', expect.stringMatching(/^audit_purge_/)]);
      expect(rows[1]).toMatchObject({
        at: 1000 * day,
        tool: auditPurgeTool,
        approver: 'retention-job',
        decision: 'allowed',
        arguments: { before: 600 * day, older_than_days: 400, deleted: 2, archive: 'archive.jsonl' },
      });
    });

    it('refuses a cutoff younger than the retention, and deletes nothing', async () => {
      const { backend, clock } = await open();
      clock.now = 1000 * day;
      await backend.audit.append(auditRow('old', 10 * day));
      for (const olderThanDays of [399, auditRetentionFloorDays, 0, Number.NaN]) {
        await expect(async () => backend.audit.purge({ olderThanDays, by: 'someone' })).rejects.toSatisfy(
          (error: unknown) => AuditRetentionError.isInstance(error) && error.minimumDays === 400,
        );
      }
      expect(await backend.count('audit_log')).toBe(1);
    });

    it('deletes nothing and writes nothing when the archive fails', async () => {
      const { backend, clock } = await open();
      clock.now = 1000 * day;
      await backend.audit.append(auditRow('old', 10 * day));
      const failing: AuditArchive = {
        location: 'full-disk.jsonl',
        write: () => {
          throw new Error('disk full');
        },
      };
      await expect(async () =>
        backend.audit.purge({ olderThanDays: 400, by: 'someone', archive: failing }),
      ).rejects.toThrow('disk full');
      expect((await backend.audit.listAudit()).map((row) => row.toolCallId)).toEqual(['old']);
    });

    it('never purges a row younger than the floor by the database’s clock, whatever the caller’s clock says', async () => {
      const { backend, clock } = await open();
      const realNow = Date.now();
      await backend.audit.append(auditRow('today', realNow));
      clock.now = realNow + 1000 * day;
      expect((await backend.audit.purge({ olderThanDays: 400, by: 'skewed-clock' })).deleted).toBe(0);
      expect((await backend.audit.listAudit()).map((row) => row.toolCallId)[0]).toBe('today');
    });

    it('still refuses a plain DELETE and UPDATE after a purge', async () => {
      const { backend, clock } = await open();
      clock.now = 1000 * day;
      await backend.audit.append(auditRow('old', 10 * day));
      await backend.audit.append(auditRow('also_old', 20 * day));
      await backend.audit.purge({ olderThanDays: 985, by: 'someone' });
      expect(await backend.count('audit_log')).toBe(2);
      await expect(backend.sql('DELETE FROM audit_log')).rejects.toThrow(/append-only: rows cannot be deleted/);
      await expect(backend.sql(`DELETE FROM audit_log WHERE at < ${990 * day}`)).rejects.toThrow(/append-only/);
      await expect(backend.sql("UPDATE audit_log SET outcome = 'undone'")).rejects.toThrow(
        /append-only: rows cannot be updated/,
      );
      expect(await backend.count('audit_log')).toBe(2);
    });

    it('prunes the events of finished runs older than the cutoff, never those of an active run', async () => {
      const { backend, clock } = await open();
      const { events, sessions } = backend;
      await events.append(runEvents('finished', 3, 100));
      await events.append(runEvents('straddling', 2, 4_000));
      await events.append(
        runEvents('straddling', 3, 4_000)
          .slice(2)
          .map((event) => ({ ...event, at: 9_000 })),
      );
      await events.append(runEvents('waiting', 2, 100));
      await events.append(runEvents('running', 2, 100));
      await events.append(runEvents('recent', 2, 10_000));
      await sessions.create({ sessionId: 'awaiting' });
      await sessions.beginRun({ sessionId: 'awaiting', runId: 'waiting' });
      await sessions.endRun({ sessionId: 'awaiting', runId: 'waiting', status: 'awaiting_approval', lastSeq: 2 });
      await sessions.create({ sessionId: 'busy' });
      await sessions.beginRun({ sessionId: 'busy', runId: 'running' });
      clock.now += 1;
      expect(await events.prune({ before: 5_000 })).toBe(3);
      expect(await events.readEvents({ runId: 'finished' })).toEqual([]);
      expect(await events.readEvents({ runId: 'straddling' })).toHaveLength(3);
      expect(await events.readEvents({ runId: 'waiting' })).toHaveLength(2);
      expect(await events.readEvents({ runId: 'running' })).toHaveLength(2);
      expect(await events.readEvents({ runId: 'recent' })).toHaveLength(2);
      expect(await events.prune({ before: 5_000 })).toBe(0);
    });

    it('purges the messages and tool results of purged sessions with them', async () => {
      const { backend, clock } = await open();
      const { sessions } = backend;
      for (const sessionId of ['old', 'young']) {
        await sessions.create({ sessionId });
        await sessions.beginRun({
          sessionId,
          runId: `run-${sessionId}`,
          messages: [{ role: 'user', content: 'Hi' }],
        });
        await sessions.journal({ sessionId }).recordToolResult(`run-${sessionId}`, {
          toolCallId: 'c1',
          tool: 'query_order',
          content: '{}',
          outcome: { ok: true, data: {} },
        });
        await sessions.endRun({ sessionId, runId: `run-${sessionId}`, status: 'idle', lastSeq: 0 });
        clock.now += 40 * day;
      }
      expect(await backend.count('session_messages')).toBe(2);
      expect(await backend.count('tool_results')).toBe(2);
      expect(await sessions.purge({ olderThanDays: 60 })).toEqual({ sessionIds: ['old'] });
      expect(await backend.count('sessions')).toBe(1);
      expect(await backend.count('session_messages')).toBe(1);
      expect(await backend.count('tool_results')).toBe(1);
      expect(await sessions.journal({ sessionId: 'young' }).findToolResult('run-young', 'c1')).toBeDefined();
    });
  });
}
