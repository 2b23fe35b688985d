import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import type { ServerLogEntry } from './server-log.js';
import { readSse } from './test-support/sse-client.js';
import { startTestServer, type TestServer, testTokens } from './test-support/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("the server's log of runs and approvals", () => {
  it('logs a run started and ended with its stop reason, an approval required and decided: ids and the tool only', async () => {
    const entries: ServerLogEntry[] = [];
    server = await startTestServer({ logger: (entry) => entries.push(entry) });
    const running = server;
    const session = await running.request('/v1/sessions', { token: testTokens.alice, method: 'POST' });
    const sessionId = session.body.id as string;
    const message = await running.request(`/v1/sessions/${sessionId}/messages`, {
      token: testTokens.alice,
      method: 'POST',
      body: { content: 'My teapot arrived cracked, I want a refund.' },
    });
    const runId = message.body.runId as string;
    const { events } = await readSse({ url: `${running.url}/v1/runs/${runId}/events`, token: testTokens.alice });
    const required = events.find((event) => event.type === 'approval:required') as ExternalEvent & {
      approvalId: string;
      toolCallId: string;
    };
    const decided = await running.request(`/v1/approvals/${required.approvalId}`, {
      token: testTokens.staff,
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(202);
    // The run goes on once decided: wait for its second end in the log.
    for (let tries = 0; entries.filter((entry) => entry.event === 'run_ended').length < 2; tries += 1) {
      if (tries > 600) throw new Error(`no second run_ended: ${JSON.stringify(entries)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const lifecycle = entries
      .filter((entry) => entry.event.startsWith('run_') || entry.event.startsWith('approval_'))
      .map(({ durationMs, steps, ...entry }) => ({
        ...entry,
        ...(durationMs === undefined ? {} : { durationMs: typeof durationMs }),
        ...(steps === undefined ? {} : { steps: typeof steps }),
      }));
    const ids = { runId, approvalId: required.approvalId, toolCallId: required.toolCallId };
    expect(lifecycle).toEqual([
      { level: 'info', event: 'run_started', runId, sessionId },
      { level: 'info', event: 'approval_required', ...ids, tool: 'apply_refund', rule: expect.any(String) },
      {
        level: 'info',
        event: 'run_ended',
        runId,
        stopReason: 'awaiting_approval',
        steps: 'number',
        durationMs: 'number',
      },
      { level: 'info', event: 'run_started', runId: expect.any(String), sessionId },
      {
        level: 'info',
        event: 'approval_decided',
        ...ids,
        runId: expect.any(String),
        tool: 'apply_refund',
        decision: 'approved',
        approver: expect.any(String),
      },
      {
        level: 'info',
        event: 'run_ended',
        runId: expect.any(String),
        stopReason: 'completed',
        steps: 'number',
        durationMs: 'number',
      },
    ]);
    // Nothing of the conversation: no arguments, no texts.
    const logged = JSON.stringify(entries);
    for (const secret of ['SO20260901', 'teapot', 'amount', testTokens.alice, testTokens.staff]) {
      expect(logged).not.toContain(secret);
    }
  });
});
