import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../core/principal.js';
import { createTierGate } from '../../gate/tier-gate.js';
import { resumeAfterApproval } from '../../loop/resume-after-approval.js';
import { runSession } from '../../loop/run-session.js';
import { ScriptedModel } from '../../models/scripted-model.js';
import { SqliteApprovalBroker } from '../../store/sqlite/sqlite-approval-broker.js';
import { SqliteAuditLog } from '../../store/sqlite/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../../store/sqlite/sqlite-idempotency-store.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { McpServerMount } from './mcp-server-mount.js';
import { filesystemBin, recordingBus, toolMessages } from './test-support/mcp-harness.js';

// @modelcontextprotocol/server-filesystem on a temporary directory, over stdio, behind arbiter's
// real gate, approval broker, idempotency store and audit log (SQLite).
let directory: string;
let mount: McpServerMount;
let store: SqliteStore;
const registry = new ToolRegistry();
const principal: Principal = { tenantId: 'acme', userId: 'u1', roles: [] };

beforeAll(async () => {
  directory = realpathSync(mkdtempSync(join(tmpdir(), 'arbiter-mcp-files-')));
  writeFileSync(join(directory, 'input.txt'), 'hello from input');
  mount = await McpServerMount.open({ server: { name: 'files', command: filesystemBin, args: [directory] } });
  mount.attach(registry);
  store = openSqliteStore({ path: ':memory:' });
}, 30_000);
afterAll(async () => {
  await mount.close();
  store.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('MCP client against server-filesystem', () => {
  it('puts write tools in the irreversible tier and read tools in read, from their annotations', () => {
    const tier = (name: string) => registry.get(name)?.definition.sideEffect;
    expect(tier('files_write_file')).toBe('irreversible');
    expect(tier('files_edit_file')).toBe('irreversible');
    expect(tier('files_move_file')).toBe('irreversible');
    expect(tier('files_create_directory')).toBe('reversible');
    expect(tier('files_read_text_file')).toBe('read');
    expect(tier('files_list_directory')).toBe('read');
    expect(mount.refusals).toEqual([]);
  });

  it('reads freely, stops a write at the gate, and writes the file once, only after approval', async () => {
    const database = store.database;
    const sessions = new SqliteSessionStore({ database });
    const broker = new SqliteApprovalBroker({ database });
    const idempotency = new SqliteIdempotencyStore({ database });
    const audit = new SqliteAuditLog({ database });
    const { events, seen } = recordingBus();
    const target = join(directory, 'out.txt');
    const write = { name: 'files_write_file', arguments: { path: target, content: 'written by arbiter' } };
    const model = new ScriptedModel({
      script: {
        name: 'files',
        turns: [
          {
            when: 'copy',
            steps: [
              { call: { name: 'files_read_text_file', arguments: { path: join(directory, 'input.txt') } } },
              { call: write },
              { say: 'saved' },
            ],
          },
          { when: 'again', steps: [{ call: write }, { say: 'saved again' }] },
        ],
      },
    });
    const options = {
      model,
      tools: registry,
      principal,
      gate: createTierGate({ tools: registry }),
      idempotency,
      audit,
      events,
    };
    const session = await sessions.create({ principal });
    const first = await runSession({
      ...options,
      sessions,
      sessionId: session.id,
      userMessage: 'copy it',
      approvals: broker,
    });
    expect(first.stopReason).toBe('awaiting_approval');
    expect(JSON.parse(toolMessages(first.messages)[0] ?? '')).toEqual({
      structuredContent: { content: 'hello from input' },
    });
    expect(existsSync(target)).toBe(false);
    const [pending] = broker.listApprovals({ runId: first.runId });
    if (pending === undefined) throw new Error('no approval requested');
    expect(pending).toMatchObject({ tool: 'files_write_file', status: 'pending' });
    expect(seen.find((event) => event.type === 'approval:required')).toMatchObject({ tool: 'files_write_file' });

    const resumed = await resumeAfterApproval({
      ...options,
      sessions,
      broker,
      approvalId: pending.approvalId,
      decision: 'approve',
      approver: 'reviewer',
    });
    expect(resumed.status).toBe('resumed');
    expect(readFileSync(target, 'utf8')).toBe('written by arbiter');
    await expect(
      resumeAfterApproval({
        ...options,
        sessions,
        broker,
        approvalId: pending.approvalId,
        decision: 'approve',
        approver: 'reviewer',
      }),
    ).rejects.toThrow(/already decided/);

    // The same write asked for again: approved again, but the idempotency claim returns the first outcome.
    writeFileSync(target, 'changed by a person since');
    const second = await runSession({
      ...options,
      sessions,
      sessionId: session.id,
      userMessage: 'again',
      approvals: broker,
    });
    expect(second.stopReason).toBe('awaiting_approval');
    const again = broker.listApprovals({ runId: second.runId }).find((approval) => approval.status === 'pending');
    if (again === undefined) throw new Error('no second approval requested');
    await resumeAfterApproval({
      ...options,
      sessions,
      broker,
      approvalId: again.approvalId,
      decision: 'approve',
      approver: 'reviewer',
    });
    expect(readFileSync(target, 'utf8')).toBe('changed by a person since');

    audit.flush?.();
    const rows = audit.listAudit({ sessionId: session.id });
    expect(rows.map((row) => [row.tool, row.sideEffect, row.decision, row.approver, row.outcome])).toEqual([
      ['files_read_text_file', 'read', 'allowed', undefined, 'ok'],
      ['files_write_file', 'irreversible', 'approved', 'reviewer', 'ok'],
      ['files_write_file', 'irreversible', 'approved', 'reviewer', 'replayed:ok'],
    ]);
    expect(rows[2]?.replayOf).toEqual({ runId: first.runId, toolCallId: rows[1]?.toolCallId });
  });
});
