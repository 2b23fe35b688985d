import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../loop/run-agent.js';
import { checkModelEndpoint } from '../../models/check-model-endpoint.js';
import { createConfiguredModel } from '../../models/create-configured-model.js';
import { type FakeEndpoint, startFakeEndpoint } from '../../models/start-fake-endpoint.js';
import { demoTokens } from '../../server/auth-config.js';
import type { AssembledServer } from '../../server/create-server.js';
import { loadDefaultDomain } from '../../server/default-domain.js';
import type { RunningServer } from '../../server/start-server.js';
import { defineTool } from '../../tools/define-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { runFakeEndpoint } from './fake-endpoint.js';
import { runServe } from './serve.js';

const directory = mkdtempSync(join(tmpdir(), 'arbiter-fake-endpoint-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function until<Value>(read: () => Value | undefined): Promise<Value> {
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `arbiter fake-endpoint` as the CLI runs it, on a free port, with the shop chat's script. */
async function startCommand(args: readonly string[] = []) {
  const lines: string[] = [];
  let endpoint: FakeEndpoint | undefined;
  const exit = runFakeEndpoint({
    args: ['--port', '0', ...args],
    write: (line) => lines.push(line),
    onStarted: (started) => {
      endpoint = started;
    },
  });
  const started = await until(() => endpoint);
  return { endpoint: started, lines, exit };
}

describe('arbiter fake-endpoint', () => {
  it('answers the openai client arbiter uses (createConfiguredModel): the endpoint check, a tool call, then text', async () => {
    const script = join(directory, 'order.json');
    writeFileSync(
      script,
      JSON.stringify({
        name: 'order',
        turns: [
          {
            steps: [
              { call: { name: 'query_order', arguments: { order_id: 'SO20260901' } } },
              { say: 'Your order {{query_order.order_id}} is {{query_order.status}}.' },
            ],
          },
        ],
      }),
    );
    const { endpoint, lines, exit } = await startCommand(['--script', script]);
    expect(lines).toEqual([
      `fake endpoint listening on ${endpoint.url} (model fake-model, script "order"; any API key)`,
      `export ARBITER_BASE_URL=${endpoint.url} ARBITER_API_KEY=fake ARBITER_MODEL=fake-model`,
    ]);
    const env = { ARBITER_BASE_URL: endpoint.url, ARBITER_API_KEY: 'fake', ARBITER_MODEL: 'fake-model' };
    expect(await checkModelEndpoint({ baseUrl: endpoint.url, apiKey: 'fake', models: ['fake-model'] })).toMatchObject({
      status: 'ok',
    });
    const looked: unknown[] = [];
    const queryOrder = defineTool<{ order_id: string }>({
      name: 'query_order',
      description: 'Look up one order by number. Not for refunds: use query_refund.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', pattern: '^SO\\d{8}$' } },
        required: ['order_id'],
      },
      sideEffect: 'read',
      execute: (args) => {
        looked.push(args);
        return { order_id: args.order_id, status: 'shipped' };
      },
    });
    const result = await runAgent({
      model: createConfiguredModel({ env }),
      tools: new ToolRegistry().register(queryOrder),
      messages: [{ role: 'user', content: 'Where is my order SO20260901?' }],
      limits: { maxSteps: 4 },
    });
    expect(result.stopReason).toBe('completed');
    expect(looked).toEqual([{ order_id: 'SO20260901' }]);
    expect(result.text).toBe('Your order SO20260901 is shipped.');
    expect(lines.slice(2)).toEqual([
      'POST /v1/chat/completions (1 messages, 1 tools) → tool call query_order {"order_id":"SO20260901"}',
      'POST /v1/chat/completions (3 messages, 1 tools) → text "Your order SO20260901 is shipped."',
    ]);
    await endpoint.close();
    expect(await exit).toBe(0);
  });

  it('refuses a port it cannot use and a script file it cannot read, as usage and input errors', async () => {
    await expect(runFakeEndpoint({ args: ['--port', 'x'], write: () => {} })).rejects.toThrow(
      '--port must be an integer from 0 to 65535, got "x"',
    );
    await expect(
      runFakeEndpoint({ args: ['--port', '0', '--script', join(directory, 'nope.json')], write: () => {} }),
    ).rejects.toThrow(/nope\.json: cannot be read/);
  });

  it('serves arbiter serve --model openai --memory-tools end to end: the shop tools and the memory tools are offered', async () => {
    const offered: (readonly string[])[] = [];
    const answers: string[] = [];
    const endpoint = await startFakeEndpoint({
      script: (await loadDefaultDomain()).chatScripts.en,
      onRequest: ({ tools, answer }) => {
        offered.push(tools);
        answers.push('toolCalls' in answer ? `call ${answer.toolCalls.join(', ')}` : `text ${answer.text}`);
      },
    });
    const serveLines: string[] = [];
    let running: RunningServer<AssembledServer> | undefined;
    const served = runServe({
      args: ['--port', '0', '--data-dir', join(directory, 'serve'), '--model', 'openai', '--memory-tools'],
      write: (line) => serveLines.push(line),
      environment: { ARBITER_BASE_URL: endpoint.url, ARBITER_API_KEY: 'fake', ARBITER_MODEL: 'fake-model' },
      onStarted: (started) => {
        running = started;
      },
    });
    const server = await until(() => running);
    expect(serveLines).toContain('arbiter serve: memory tools mounted (save_fact, recall_facts)');
    const headers = { authorization: `Bearer ${demoTokens.customer}`, 'content-type': 'application/json' };
    const session = (await (
      await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers, body: '{}' })
    ).json()) as {
      id: string;
    };
    const sent = await fetch(`${server.url}/v1/sessions/${session.id}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ content: 'Where is my order SO20260901?' }),
    });
    expect(sent.status).toBe(202);
    const { runId } = (await sent.json()) as { runId: string };
    const events = await (await fetch(`${server.url}/v1/runs/${runId}/events`, { headers })).text();
    expect(events).toContain('run:end');
    expect(answers[0]).toMatch(/^call query_order /);
    expect(answers.at(-1)).toMatch(/^text /);
    expect(offered[0]).toEqual(expect.arrayContaining(['query_order', 'save_fact', 'recall_facts']));
    await server.close();
    expect(await served).toBe(0);
    await endpoint.close();
  });
});
