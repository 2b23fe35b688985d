import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/chat-message.js';
import { SqliteSessionStore } from '../../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { sessionsCommand } from './sessions.js';

let dataDirectory: string;
beforeEach(() => {
  dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-sessions-cli-'));
});
afterEach(() => rmSync(dataDirectory, { recursive: true, force: true }));

const conversation: ChatMessage[] = [
  { role: 'user', content: 'Where is SO20260901?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'query_order', arguments: '{"order_id":"SO20260901"}' } },
    ],
  },
  {
    role: 'tool',
    tool_call_id: 'call_1',
    content: '{"order_id":"SO20260901","status":"shipped","recipient_phone":"+86 138 0000 1234"}',
  },
  { role: 'assistant', content: 'It shipped; the courier will call +86 138 0000 1234.' },
];

const registry = new ToolRegistry().register(
  defineTool({
    name: 'query_order',
    description: 'Look up an order. Not for shipments: use track_shipment.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    sideEffect: 'read',
    sensitive: ['recipient_phone'],
    execute: () => ({}),
  }),
);

async function seed(
  work: (sessions: SqliteSessionStore, database: ReturnType<typeof openSqliteStore>) => Promise<void>,
) {
  const store = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
  try {
    await work(new SqliteSessionStore({ database: store.database }), store);
  } finally {
    store.close();
  }
}

const sessions = (...args: string[]) =>
  sessionsCommand({ args: [...args, '--data-dir', dataDirectory], environment: { tools: registry } });

describe('arbiter sessions', () => {
  it('says there is no store, and creates none, when there is none (as every operational command does)', async () => {
    const result = await sessions('list');
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: [`arbiter: no arbiter store at ${join(dataDirectory, 'arbiter.db')}`],
    });
  });

  it('lists sessions most recently updated first, as a table or JSON lines', async () => {
    await seed(async (store) => {
      await store.create({ sessionId: 'first' });
      await store.create({ sessionId: 'second' });
      await store.append({ sessionId: 'first', messages: conversation });
    });
    const table = await sessions('list');
    expect(table.stdout[0]).toMatch(/^id +status +messages +steps +tokens +version +updated$/);
    expect(table.stdout.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ['first', 'idle', '4'],
      ['second', 'idle', '0'],
    ]);
    const json = await sessions('list', '--json', '--limit', '1');
    expect(json.stdout.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['first']);
  });

  it('sizes the table to its longest id, so the columns still line up', async () => {
    const long = `chat-${'x'.repeat(60)}`;
    await seed(async (store) => {
      await store.create({ sessionId: long });
      await store.create({ sessionId: 's' });
    });
    const [header = '', ...rows] = (await sessions('list')).stdout;
    const statusAt = header.indexOf('status');
    expect(statusAt).toBe(long.length + 2);
    for (const row of rows) expect(row.slice(statusAt, statusAt + 4)).toBe('idle');
    const updatedAt = header.indexOf('updated');
    for (const row of rows) expect(row.slice(updatedAt)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('shows a session, redacting sensitive fields and their copies in text with --redact', async () => {
    await seed(async (store) => {
      await store.create({ sessionId: 's1', slots: { order_id: 'SO20260901', phone: '+86 138 0000 1234' } });
      await store.append({ sessionId: 's1', messages: conversation });
    });
    const plain = await sessions('show', 's1');
    expect(plain.stdout.join('\n')).toContain('+86 138 0000 1234');
    const redacted = await sessions('show', 's1', '--redact', '--sensitive', 'phone');
    expect(redacted.exitCode).toBe(0);
    expect(redacted.stdout.join('\n')).not.toContain('138 0000');
    expect(redacted.stdout.slice(4)).toMatchInlineSnapshot(`
      [
        "slots     {"order_id":"SO20260901","phone":"[redacted]"}",
        "messages  4",
        "   #0 user       Where is SO20260901?",
        "   #1 assistant  calls query_order {"order_id":"SO20260901"} (call_1)",
        "   #2 tool       (call_1) {"order_id":"SO20260901","status":"shipped","recipient_phone":"[redacted]"}",
        "   #3 assistant  It shipped; the courier will call [redacted].",
      ]
    `);
  });

  it('exports a session as JSON, redacted unless told otherwise', async () => {
    await seed(async (store) => {
      await store.create({ sessionId: 's1' });
      await store.append({ sessionId: 's1', messages: conversation });
    });
    const exported = JSON.parse((await sessions('export', 's1')).stdout.join('\n')) as {
      redacted: boolean;
      messages: ChatMessage[];
      staleTools: unknown[];
    };
    expect(exported.redacted).toBe(true);
    expect(JSON.stringify(exported.messages)).not.toContain('138 0000');
    expect(exported.staleTools).toEqual([]);
    const raw = JSON.parse((await sessions('export', 's1', '--no-redact')).stdout.join('\n')) as { messages: unknown };
    expect(JSON.stringify(raw.messages)).toContain('138 0000');
  });

  it('flags stale tool names against a tools file', async () => {
    await seed(async (store) => {
      await store.create({ sessionId: 's1' });
      await store.append({ sessionId: 's1', messages: conversation });
    });
    const toolsFile = join(dataDirectory, 'tools.json');
    writeFileSync(
      toolsFile,
      JSON.stringify([
        {
          type: 'function',
          function: { name: 'track_shipment', description: 'Track.', parameters: { type: 'object' } },
        },
      ]),
    );
    const result = await sessionsCommand({ args: ['show', 's1', '--data-dir', dataDirectory, '--tools', toolsFile] });
    expect(result.stdout.at(-1)).toBe(
      'stale     query_order (1 call): no longer registered; the loop answers such calls with the current tools',
    );
  });

  it('forks at a message, and refuses a point inside a tool call with the nearest that work', async () => {
    await seed(async (store) => {
      await store.create({ sessionId: 's1' });
      await store.append({ sessionId: 's1', messages: conversation });
    });
    const fork = await sessions('fork', 's1', '--at', '3');
    expect(fork.exitCode).toBe(0);
    expect(fork.stdout[0]).toMatch(/^forked s1 at message 3: new session [0-9a-f-]{36} \(3 messages\)$/);
    const refused = await sessions('fork', 's1', '--at', '2');
    expect(refused).toEqual({
      exitCode: 1,
      stdout: [],
      stderr: [
        "arbiter: cannot fork session s1 at message 2: message 2 would separate an assistant message's tool calls from their tool messages; fork at 1 or 3 instead",
      ],
    });
    expect((await sessions('fork', 'nope', '--at', '1')).exitCode).toBe(1);
  });

  it('refuses a fork without --at as bad usage, whatever the session ends with', async () => {
    await seed(async (store) => {
      await store.create({ sessionId: 's1' });
      await store.append({ sessionId: 's1', messages: conversation.slice(0, 2) });
    });
    const fork = await sessions('fork', 's1');
    expect(fork.exitCode).toBe(2);
    expect(fork.stderr[0]).toBe(
      'arbiter: sessions fork needs --at N: the new session keeps messages 0 to N-1 (`sessions show ID` numbers them)',
    );
    expect((await sessions('list', '--json')).stdout).toHaveLength(1);
  });

  it('purges sessions idle for more than the given days, and expired ones', async () => {
    await seed(async (store, database) => {
      await store.create({ sessionId: 'old' });
      await store.create({ sessionId: 'fresh' });
      await store.create({ sessionId: 'expiring', ttlMs: 1 });
      database.database
        .prepare("UPDATE sessions SET updated_at = updated_at - 40 * 86400000 WHERE session_id = 'old'")
        .run();
    });
    expect((await sessions('purge', '--older-than', '30')).stdout).toEqual(['purged 1 session', 'old']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await sessions('purge', '--expired')).stdout).toEqual(['purged 1 session', 'expiring']);
    expect((await sessions('list', '--json')).stdout.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([
      'fresh',
    ]);
  });

  it('explains bad usage with exit code 2', async () => {
    expect((await sessions()).exitCode).toBe(2);
    expect((await sessions('purge')).stderr[0]).toBe('arbiter: sessions purge needs --older-than DAYS or --expired');
    expect((await sessions('fork', 's1', '--at', 'two')).stderr[0]).toBe(
      'arbiter: --at must be a number of 0 or more, got "two"',
    );
    expect((await sessions('show')).exitCode).toBe(2);
    expect((await sessions('list', '--bogus')).exitCode).toBe(2);
  });
});
