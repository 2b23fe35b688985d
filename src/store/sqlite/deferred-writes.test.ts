import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../gate/audit-log.js';
import { SqliteAuditLog } from './sqlite-audit-log.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { openSqliteStore } from './sqlite-store.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A store on a file, and a second connection to the same file: what another process (or one after a crash) sees. */
function openFileStore() {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-deferred-'));
  directories.push(directory);
  const path = join(directory, 'arbiter.db');
  const store = openSqliteStore({ path });
  const outside = new Database(path, { readonly: true });
  const count = (table: string) =>
    (outside.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
  const close = () => {
    outside.close();
    store.close();
  };
  return { store, count, close };
}

const entry = (toolCallId: string, sideEffect: AuditEntry['sideEffect']): AuditEntry => ({
  at: 1_000,
  sessionId: 's1',
  runId: 'run-1',
  step: 1,
  toolCallId,
  tool: sideEffect === 'read' ? 'query_order' : 'refund_order',
  sideEffect,
  argumentsHash: 'hash',
  arguments: { order_id: 'SO20260901' },
  decision: 'allowed',
  rule: undefined,
  approver: undefined,
  outcome: 'ok',
  durationMs: 1,
});

describe('writes that wait for the next transaction', () => {
  it('lets the audit row of a read wait, and commits a write’s row at once together with it', () => {
    const { store, count, close } = openFileStore();
    const audit = new SqliteAuditLog({ database: store.database });
    audit.append(entry('call_read', 'read'));
    expect(count('audit_log')).toBe(0);
    // Reading the log from the same connection sees it.
    expect(audit.listAudit().map((row) => row.toolCallId)).toEqual(['call_read']);
    audit.append(entry('call_read_2', 'read'));
    audit.append(entry('call_refund', 'irreversible'));
    expect(count('audit_log')).toBe(3);
    expect(audit.listAudit().map((row) => row.toolCallId)).toEqual(['call_read', 'call_read_2', 'call_refund']);
    close();
  });

  it('commits waiting audit rows when the store closes', () => {
    const { store } = openFileStore();
    const path = store.database.name;
    const audit = new SqliteAuditLog({ database: store.database });
    for (let index = 0; index < 40; index += 1) audit.append(entry(`call_${index}`, 'read'));
    store.close();
    const reopened = new Database(path, { readonly: true });
    expect(reopened.prepare('SELECT COUNT(*) AS count FROM audit_log').get()).toEqual({ count: 40 });
    reopened.close();
  });

  it('holds a rerunnable step commit until the next commit, which writes both; a crash in between loses only it', async () => {
    const { store, count, close } = openFileStore();
    const sessions = new SqliteSessionStore({ database: store.database });
    const audit = new SqliteAuditLog({ database: store.database });
    await sessions.create({ sessionId: 's1' });
    await sessions.beginRun({ sessionId: 's1', runId: 'run-1', messages: [{ role: 'user', content: 'Where is it?' }] });
    const journal = sessions.journal({ sessionId: 's1' });
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'query_order', arguments: '{}' } };
    await journal.commitStep({
      runId: 'run-1',
      sessionId: 's1',
      appended: [{ role: 'assistant', content: null, tool_calls: [call] }],
      steps: 1,
      usage,
    });
    const answered = count('session_messages');
    const result = {
      toolCallId: 'call_1',
      tool: 'query_order',
      content: '{"status":"shipped"}',
      outcome: { ok: true as const, data: { status: 'shipped' } },
    };
    await journal.recordToolResult('run-1', { ...result, rerunnable: true });
    audit.append(entry('call_1', 'read'));
    await journal.commitStep({
      runId: 'run-1',
      sessionId: 's1',
      appended: [{ role: 'tool', tool_call_id: 'call_1', content: result.content }],
      steps: 1,
      usage,
      rerunnable: true,
    });
    // Another process sees neither the answer nor its audit row yet: after a crash the read runs again.
    expect(count('session_messages')).toBe(answered);
    expect(count('audit_log')).toBe(0);
    expect(count('tool_results')).toBe(0);
    // This journal still answers with the result, so the run never runs the call twice itself.
    expect(await journal.findToolResult('run-1', 'call_1')).toMatchObject({ content: result.content });
    await journal.commitStep({
      runId: 'run-1',
      sessionId: 's1',
      appended: [{ role: 'assistant', content: 'It is shipped.' }],
      steps: 2,
      usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    });
    expect(count('session_messages')).toBe(answered + 2);
    expect(count('audit_log')).toBe(1);
    const session = await sessions.load('s1');
    expect(session?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(session?.stepCount).toBe(2);
    expect(session?.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    close();
  });

  it('writes a held step commit and the next one with one update of the session row, messages in order', async () => {
    const { store, close } = openFileStore();
    const sessions = new SqliteSessionStore({ database: store.database });
    await sessions.create({ sessionId: 's1' });
    await sessions.beginRun({ sessionId: 's1', runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
    const journal = sessions.journal({ sessionId: 's1' });
    const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 1, totalTokens: tokens + 1 });
    const changes = () =>
      (store.database.prepare('SELECT total_changes() AS changes').get() as { changes: number }).changes;
    const step = (content: string, steps: number, rerunnable: boolean) =>
      journal.commitStep({
        runId: 'run-1',
        sessionId: 's1',
        appended: [{ role: 'assistant', content }],
        steps,
        usage: usage(steps * 10),
        ...(rerunnable ? { rerunnable } : {}),
      });

    // Two held commits become one queued write; the event loop's turn writes it: one update, two messages.
    let before = changes();
    await step('a', 1, true);
    await step('b', 2, true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(changes() - before).toBe(3);

    // A held commit and a commit that must be durable now: one update, two messages, in one transaction.
    before = changes();
    await step('c', 3, true);
    await step('d', 4, false);
    expect(changes() - before).toBe(3);

    const session = await sessions.load('s1');
    expect(session?.messages.map((message) => message.content)).toEqual(['Hi', 'a', 'b', 'c', 'd']);
    expect(session?.stepCount).toBe(4);
    expect(session?.usage).toEqual({ inputTokens: 40, outputTokens: 1 });
    close();
  });

  it('fails the run’s next journal call when a held commit finds another run active', async () => {
    const { store, close } = openFileStore();
    const sessions = new SqliteSessionStore({ database: store.database });
    await sessions.create({ sessionId: 's1' });
    await sessions.beginRun({ sessionId: 's1', runId: 'run-1', messages: [{ role: 'user', content: 'Hi' }] });
    const journal = sessions.journal({ sessionId: 's1' });
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    await journal.commitStep({
      runId: 'run-1',
      sessionId: 's1',
      appended: [{ role: 'assistant', content: 'x' }],
      steps: 1,
      usage,
      rerunnable: true,
    });
    // The run is taken away before the held commit is written (another process ended it and began another).
    store.database.prepare("UPDATE sessions SET active_run_id = 'run-2' WHERE session_id = 's1'").run();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(
      journal.commitStep({ runId: 'run-1', sessionId: 's1', appended: [], steps: 1, usage }),
    ).rejects.toMatchObject({ code: 'session_conflict' });
    expect((await sessions.load('s1'))?.messages.map((message) => message.content)).toEqual(['Hi']);
    close();
  });
});
