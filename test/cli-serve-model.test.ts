import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeChatServer,
  type FakeModels,
  startFakeChatServer,
} from '../src/models/test-support/fake-chat-server.js';
import { demoTokens } from '../src/server/auth-config.js';
import { readSse } from '../src/server/test-support/sse-client.js';

const apiKey = 'sk-arbiter-SERVELEAK-3b8e41d2';
const directories: string[] = [];
const children: ChildProcess[] = [];
let endpoint: FakeChatServer | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await endpoint?.close();
  endpoint = undefined;
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A port nothing listens on: bound once to learn a free one, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** `arbiter serve --model openai` as a child process on `baseUrl`, with its output as it comes. */
function serve(baseUrl: string, ...flags: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-serve-model-'));
  directories.push(dataDir);
  const { APPROVE: _approve, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'serve',
      '--model',
      'openai',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...flags,
    ],
    {
      env: { ...inherited, ARBITER_BASE_URL: baseUrl, ARBITER_API_KEY: apiKey, ARBITER_MODEL: 'gpt-4o' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves with the URL it listens on, or rejects with what it printed when it exits first. */
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(output.stdout)?.[1];
      // The last line it prints before it handles SIGTERM.
      if (url !== undefined && output.stdout.includes('Ctrl-C stops the server')) resolve(url);
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}:\n${output.stdout}\n${output.stderr}`)));
  });
  // Awaited only by the tests that expect it to start.
  listening.catch(() => {});
  return { output, exited, listening, child };
}

async function endpointWith(models: FakeModels, respond: Parameters<typeof startFakeChatServer>[0]['respond'] = []) {
  endpoint = await startFakeChatServer({ respond, models });
  return endpoint;
}

describe('arbiter serve --model openai at start-up', () => {
  it('exits 2 on a closed port, naming the URL and the model, never the key', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const { exited, output } = serve(baseUrl);
    expect(await exited).toBe(2);
    expect(output.stderr).toBe(
      `arbiter: model endpoint ${baseUrl} (model gpt-4o) is unreachable (ECONNREFUSED); check ARBITER_BASE_URL\n`,
    );
    expect(output.stdout).not.toContain('listening');
    expect(output.stdout + output.stderr).not.toContain(apiKey);
  });

  it('exits 2 when the key is refused, without echoing what the endpoint said about it', async () => {
    const { url } = await endpointWith(() => ({
      kind: 'error',
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${apiKey}`, code: 'invalid_api_key' } },
    }));
    const { exited, output } = serve(url);
    expect(await exited).toBe(2);
    expect(output.stderr).toBe(
      `arbiter: model endpoint ${url} (model gpt-4o) refused the API key (401); check ARBITER_API_KEY\n`,
    );
    expect(output.stdout + output.stderr).not.toContain(apiKey);
  });

  it('exits 2 on a model the endpoint does not list', async () => {
    const { url } = await endpointWith(['gpt-4o-mini']);
    const { exited, output } = serve(url);
    expect(await exited).toBe(2);
    expect(output.stderr).toContain(`model endpoint ${url} (model gpt-4o): the endpoint does not list "gpt-4o"`);
    expect(output.stderr).toContain('check ARBITER_MODEL');
  });

  it('starts on a closed port with --skip-model-check, saying it did not check', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const { listening, output, child, exited } = serve(baseUrl, '--skip-model-check');
    await listening;
    expect(output.stdout).toContain(`model gpt-4o at ${baseUrl} not checked (--skip-model-check)`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('arbiter serve --model openai on a failing endpoint', () => {
  it('retries a failed model call and logs it once with every retry decision, never the key', async () => {
    const { url, requests } = await endpointWith(['gpt-4o'], () => ({ kind: 'error', status: 503 }));
    const { listening, output, child, exited } = serve(url);
    const server = await listening;
    const headers = { authorization: `Bearer ${demoTokens.customer}`, 'content-type': 'application/json' };
    const session = (await (await fetch(`${server}/v1/sessions`, { method: 'POST', headers, body: '{}' })).json()) as {
      id: string;
    };
    const sent = await fetch(`${server}/v1/sessions/${session.id}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ content: 'Where is my order SO20260901?' }),
    });
    const { runId } = (await sent.json()) as { runId: string };
    const { events } = await readSse({ url: `${server}/v1/runs/${runId}/events`, token: demoTokens.customer });
    expect(events.at(-1)).toMatchObject({ type: 'run:error', code: 'model_call_failed' });

    const calls = requests.filter((request) => request.path === '/v1/chat/completions');
    expect(calls).toHaveLength(3);
    const failures = output.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.event === 'model_call_failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ endpoint: url, model: 'gpt-4o', status: 503, attempts: 3 });
    expect(((failures[0]?.decisions ?? []) as { kind: string }[]).map((decision) => decision.kind)).toEqual([
      'retry',
      'retry',
      'give_up',
    ]);
    // Said at start, after the check passed.
    expect(output.stdout).toContain(
      `arbiter serve: model endpoint ${url} (model gpt-4o): reachable, key accepted, model listed; failed calls retried with backoff`,
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.stdout + output.stderr).not.toContain(apiKey);
  });
});
