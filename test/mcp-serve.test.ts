import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditCommand } from '../src/cli/commands/audit.js';
import { runServe } from '../src/cli/commands/serve.js';
import type { ExternalEvent } from '../src/events/external-event.js';
import { demoTokens } from '../src/server/auth-config.js';
import type { AssembledServer } from '../src/server/create-server.js';
import type { RunningServer } from '../src/server/start-server.js';
import { readSse } from '../src/server/test-support/sse-client.js';

// `arbiter serve --mcp FILE` end to end: the shop's native tools and server-filesystem's tools in one
// scripted run, over HTTP, through the gate and a person's approval, visible in the event stream and the audit.
const directory = realpathSync(mkdtempSync(join(tmpdir(), 'arbiter-mcp-serve-')));
const share = join(directory, 'share');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('arbiter serve --mcp', () => {
  it('runs native and MCP tools in one run, holds the MCP write for approval, and audits all of it', async () => {
    mkdirSync(share);
    writeFileSync(join(share, 'notes.txt'), 'customer prefers email');
    const target = join(share, 'summary.txt');
    const mcpFile = join(directory, 'mcp.json');
    writeFileSync(
      mcpFile,
      JSON.stringify([
        // The config names an environment variable; serve expands it.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
        { name: 'files', command: resolve('node_modules/.bin/mcp-server-filesystem'), args: ['${SHARE_DIR}'] },
      ]),
    );
    const scriptFile = join(directory, 'script.json');
    writeFileSync(
      scriptFile,
      JSON.stringify({
        name: 'mcp-mix',
        turns: [
          {
            steps: [
              { call: { name: 'query_order', arguments: { order_id: 'SO20260901' } } },
              { call: { name: 'files_read_text_file', arguments: { path: join(share, 'notes.txt') } } },
              { call: { name: 'files_write_file', arguments: { path: target, content: 'SO20260901 shipped' } } },
              { say: 'Saved the summary.' },
            ],
          },
        ],
      }),
    );
    const lines: string[] = [];
    let running: RunningServer<AssembledServer> | undefined;
    const dataDir = join(directory, 'data');
    const exit = runServe({
      args: ['--port', '0', '--data-dir', dataDir, '--mcp', mcpFile, '--script', scriptFile],
      write: (line) => lines.push(line),
      onStarted: (started) => {
        running = started;
      },
      environment: { SHARE_DIR: share, ARBITER_SCRIPTED_LATENCY_MS: '0' },
    });
    while (running === undefined) await new Promise((resolveWait) => setTimeout(resolveWait, 10));
    const base = running.url;
    try {
      expect(lines).toContainEqual(
        expect.stringMatching(/^arbiter serve: MCP server "files": 1\d tools mounted \(files_read_file, /),
      );
      const call = async (path: string, token: string, body?: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const customer = demoTokens.customer;
      const session = await call('/v1/sessions', customer, {});
      const sessionId = session.body['id'] as string;
      const sent = await call(`/v1/sessions/${sessionId}/messages`, customer, { content: 'save a summary' });
      expect(sent.status).toBe(202);
      const runId = sent.body['runId'] as string;
      const first = await readSse({
        url: `${base}/v1/runs/${runId}/events`,
        token: customer,
        // The stop's own run:end (awaiting_approval) too: the next stream starts after it, at the resumed run.
        stopAfter: (event) => event.type === 'run:end',
      });
      const calls = (events: readonly ExternalEvent[]) =>
        events.flatMap((event) => ('tool' in event ? [`${event.type} ${event.tool}`] : [event.type]));
      expect(calls(first.events)).toEqual(
        expect.arrayContaining([
          'tool:start query_order',
          'tool:end query_order',
          'tool:start files_read_text_file',
          'tool:end files_read_text_file',
          'approval:required files_write_file',
        ]),
      );
      expect(first.events.at(-1)).toMatchObject({ type: 'run:end', stopReason: 'awaiting_approval' });
      expect(existsSync(target)).toBe(false);
      const approval = first.events.find((event) => event.type === 'approval:required') as { approvalId: string };
      const decided = await call(`/v1/approvals/${approval.approvalId}`, demoTokens.approver, { decision: 'approve' });
      expect(decided.status).toBeLessThan(300);
      const rest = await readSse({
        url: `${base}/v1/runs/${runId}/events`,
        token: customer,
        lastEventId: first.events.at(-1)?.seq ?? 0,
        stopAfter: (event) => event.type === 'run:end',
      });
      expect(calls(rest.events)).toEqual(
        expect.arrayContaining([
          'approval:resolved files_write_file',
          'tool:start files_write_file',
          'tool:end files_write_file',
          'run:end',
        ]),
      );
      expect(readFileSync(target, 'utf8')).toBe('SO20260901 shipped');

      const audit = await auditCommand({ dataDirectory: dataDir, json: true, sessionId });
      const rows = audit.stdout.map((line) => JSON.parse(line) as Record<string, unknown>);
      const flat = (rows.length === 1 && Array.isArray(rows[0]) ? (rows[0] as Record<string, unknown>[]) : rows).map(
        (row) => [row['tool'], row['sideEffect'], row['decision'], row['outcome']],
      );
      expect(flat).toEqual([
        ['query_order', 'read', 'allowed', 'ok'],
        ['files_read_text_file', 'read', 'allowed', 'ok'],
        ['files_write_file', 'irreversible', 'approved', 'ok'],
      ]);
    } finally {
      await running.close();
    }
    expect(await exit).toBe(0);
  }, 60_000);
});
