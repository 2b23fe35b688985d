// What scripts/readme-smoke.sh asks of a running server or an MCP server, as the README's readers would do
// it by hand (curl, a client's config). Usage:
//   node readme-smoke-client.mjs chat URL TOKEN MESSAGE      one message, its run followed to run:end; prints the
//                                                            stop reason and the last answer text
//   node readme-smoke-client.mjs approve URL TOKEN FOLLOW_URL  as an approver: the one pending approval of the
//                                                            tenant approved on URL, its run followed on FOLLOW_URL
//   node readme-smoke-client.mjs mcp-http CONFIG.json        the client entry's url and headers: initialize, tools/list
//   node readme-smoke-client.mjs mcp-stdio CONFIG.json       the client entry's command, args and env: the same, over stdio
// Prints one line per fact the smoke checks; exits 1 with one line when something does not answer as it should.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [command, ...args] = process.argv.slice(2);

const fail = (message) => {
  process.stderr.write(`readme-smoke-client: ${message}\n`);
  process.exit(1);
};

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme-smoke', version: '1' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** The one entry of a client's `mcpServers` config. */
function entryOf(file) {
  const servers = Object.values(JSON.parse(readFileSync(file, 'utf8')).mcpServers ?? {});
  if (servers.length !== 1) fail(`${file}: expected one entry under mcpServers`);
  return servers[0];
}

function printTools(result) {
  const names = (result?.tools ?? []).map((tool) => tool.name);
  if (names.length === 0) fail('tools/list listed no tools');
  console.log(`tools: ${names.join(', ')}`);
}

async function chat(url, token, message) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${url}/v1/sessions`, { method: 'POST', headers, body: '{}' });
  if (!created.ok) fail(`POST /v1/sessions answered ${created.status}: ${await created.text()}`);
  const { id } = await created.json();
  const sent = await fetch(`${url}/v1/sessions/${id}/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ content: message }),
  });
  if (sent.status !== 202) fail(`POST /v1/sessions/${id}/messages answered ${sent.status}: ${await sent.text()}`);
  const { runId } = await sent.json();
  await follow({ url, headers, runId });
}

/**
 * Follows a run's events to its end and prints its stop reason, tools and last answer; with `pastApproval`, a
 * `run:end` at `awaiting_approval` is not the end: the stream is opened again after it (Last-Event-ID), as a
 * client does, until the resumed run ends.
 */
async function follow({ url, headers, runId, pastApproval = false }) {
  const events = [];
  let end;
  do {
    const resume = events.length === 0 ? {} : { 'last-event-id': String(events.at(-1).seq) };
    const stream = await fetch(`${url}/v1/runs/${runId}/events`, {
      headers: { ...headers, ...resume },
      signal: AbortSignal.timeout(30_000),
    });
    if (!stream.ok) fail(`GET ${url}/v1/runs/${runId}/events answered ${stream.status}`);
    const read = (await stream.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    events.push(...read);
    end = read.find((event) => event.type === 'run:end');
    if (end === undefined) fail(`run ${runId}: the stream ended without run:end`);
  } while (pastApproval && end.stopReason === 'awaiting_approval');
  const lastStep = Math.max(0, ...events.filter((event) => event.type === 'model:delta').map((event) => event.step));
  const answer = events
    .filter((event) => event.type === 'model:delta' && event.step === lastStep)
    .map((event) => event.text)
    .join('');
  const tools = events.filter((event) => event.type === 'tool:end').map((event) => event.tool);
  console.log(`stop: ${end.stopReason}`);
  console.log(`tools: ${tools.join(', ')}`);
  console.log(`answer: ${answer}`);
}

async function approve(url, token, followUrl) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const inbox = await fetch(`${url}/v1/approvals`, { headers });
  if (!inbox.ok) fail(`GET ${url}/v1/approvals answered ${inbox.status}: ${await inbox.text()}`);
  const { approvals } = await inbox.json();
  if (approvals.length !== 1) fail(`GET ${url}/v1/approvals: ${approvals.length} pending approvals, expected one`);
  const [{ approvalId, tool }] = approvals;
  const decided = await fetch(`${url}/v1/approvals/${approvalId}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ decision: 'approve' }),
  });
  if (decided.status !== 202) fail(`POST ${url}/v1/approvals/${approvalId} answered ${decided.status}`);
  const { runId } = await decided.json();
  console.log(`approved: ${tool} (${approvalId})`);
  await follow({ url: followUrl, headers, runId, pastApproval: true });
}

async function mcpHttp(file) {
  const { url, headers = {} } = entryOf(file);
  const post = async (body, session) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(session === undefined ? {} : { 'mcp-session-id': session }),
      },
      body: JSON.stringify(body),
    });
    if (!response.ok && response.status !== 202) fail(`${url} answered ${response.status}: ${await response.text()}`);
    const text = await response.text();
    const data = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((line) => line.startsWith('data: '))
          ?.slice(6);
    return { session: response.headers.get('mcp-session-id') ?? session, message: data ? JSON.parse(data) : undefined };
  };
  const { session, message } = await post(initialize);
  console.log(`server: ${message?.result?.serverInfo?.name ?? fail('initialize answered no serverInfo')}`);
  await post(initialized, session ?? undefined);
  printTools((await post(listTools, session ?? undefined)).message?.result);
}

async function mcpStdio(file) {
  const { command: executable, args: serverArgs = [], env = {} } = entryOf(file);
  const child = spawn(executable, serverArgs, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  const answers = new Map();
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line.trim() === '') continue;
      const message = JSON.parse(line);
      if (message.id !== undefined) answers.set(message.id, message);
    }
  });
  const answer = async (id) => {
    const started = Date.now();
    while (!answers.has(id)) {
      if (Date.now() - started > 20_000) fail(`${executable}: no answer to request ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return answers.get(id);
  };
  child.stdin.write(`${JSON.stringify(initialize)}\n`);
  console.log(`server: ${(await answer(1)).result?.serverInfo?.name ?? fail('initialize answered no serverInfo')}`);
  child.stdin.write(`${JSON.stringify(initialized)}\n${JSON.stringify(listTools)}\n`);
  printTools((await answer(2)).result);
  child.stdin.end();
  child.kill('SIGTERM');
}

if (command === 'chat') await chat(args[0], args[1], args[2]);
else if (command === 'approve') await approve(args[0], args[1], args[2]);
else if (command === 'mcp-http') await mcpHttp(args[0]);
else if (command === 'mcp-stdio') await mcpStdio(args[0]);
else fail(`unknown command ${command}`);
