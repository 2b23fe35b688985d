/**
 * The session bench's control (`ARBITER_BENCH_CONTROL=1 npm run bench -- session`):
 * a plain Node.js HTTP server on `pg` that answers a one-message session the
 * way an arbiter node does for the bench's client, with none of arbiter in
 * it. Create the session (one `INSERT`), post the message (two rate-limit
 * statements, one transaction that begins the run), run it (the model's two
 * calls each 50 ms away, a step commit after each, one read tool's query,
 * one audit row, the end with its events, run and session in one
 * transaction), and stream its events as SSE to `run:end` (the stream's row
 * written and deleted): about as many transactions as an arbiter session
 * and the same three requests, with far less JavaScript between them.
 *
 * What it is for: the bench's node CPU ratio, three processes ÷ one, of a
 * server whose code cannot be the cause. Where this server's ratio is as
 * high as arbiter's, the ratio is the machine's (three busy processes
 * sharing its cores), not arbiter's code.
 *
 * Usage: node plain-session-server.js POSTGRES_URL (prints `listening on URL`).
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

const storeUrl = process.argv[2];
if (storeUrl === undefined) throw new Error('usage: plain-session-server.js POSTGRES_URL');
const pool = new pg.Pool({ connectionString: storeUrl, max: 10 });
const modelLatencyMs = Number(process.env.ARBITER_SCRIPTED_LATENCY_MS ?? 50);
const runs = new Map<string, { events: string[]; done: boolean; emitter: EventEmitter }>();
let counter = 0;
function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

await pool.query(`
  CREATE TABLE IF NOT EXISTS plain_sessions (id text PRIMARY KEY, user_id text, status text, steps int DEFAULT 0);
  CREATE TABLE IF NOT EXISTS plain_messages (session_id text, position int, message jsonb);
  CREATE TABLE IF NOT EXISTS plain_runs (id text PRIMARY KEY, session_id text, status text);
  CREATE TABLE IF NOT EXISTS plain_events (run_id text, seq int, event jsonb);
  CREATE TABLE IF NOT EXISTS plain_audit (run_id text, tool text, arguments jsonb);
  CREATE TABLE IF NOT EXISTS plain_streams (id text PRIMARY KEY, run_id text);
  CREATE TABLE IF NOT EXISTS plain_limits (user_id text, at timestamptz);`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function transaction(statements: readonly [string, unknown[]][]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const [text, values] of statements) await client.query(text, values);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

function emit(runId: string, event: Record<string, unknown>): void {
  const run = runs.get(runId);
  if (run === undefined) return;
  const line = JSON.stringify({ runId, seq: run.events.length + 1, at: new Date().toISOString(), ...event });
  run.events.push(line);
  run.emitter.emit('event', line);
}

async function runMessage(sessionId: string, runId: string, content: string): Promise<void> {
  emit(runId, { type: 'run:start', sessionId });
  await sleep(modelLatencyMs);
  const call = { id: 'call_1', name: 'query_order', arguments: { order_id: 'SO20260901' } };
  emit(runId, { type: 'model:response', toolCalls: [call], usage: { input: 120, output: 20 } });
  await pool.query('UPDATE plain_sessions SET steps = steps + 1 WHERE id = $1', [sessionId]);
  const order = await pool.query('SELECT $1::text AS order_id, $2::text AS status', ['SO20260901', 'shipped']);
  await pool.query('INSERT INTO plain_audit VALUES ($1, $2, $3)', [runId, call.name, JSON.stringify(call.arguments)]);
  emit(runId, { type: 'tool:result', toolCallId: call.id, result: order.rows[0] });
  await sleep(modelLatencyMs);
  emit(runId, { type: 'model:response', text: `Your order is ${String(order.rows[0]?.status)}: ${content}` });
  await pool.query('UPDATE plain_sessions SET steps = steps + 1 WHERE id = $1', [sessionId]);
  emit(runId, { type: 'run:end', stopReason: 'completed' });
  const events = runs.get(runId)?.events ?? [];
  await transaction([
    [
      'INSERT INTO plain_events SELECT $1, ordinality, event::jsonb FROM unnest($2::text[]) WITH ORDINALITY AS event',
      [runId, events],
    ],
    ["UPDATE plain_runs SET status = 'completed' WHERE id = $1", [runId]],
    ["UPDATE plain_sessions SET status = 'idle' WHERE id = $1", [sessionId]],
  ]);
  const run = runs.get(runId);
  if (run !== undefined) run.done = true;
  run?.emitter.emit('done');
  setTimeout(() => runs.delete(runId), 5000);
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = request.url ?? '/';
  const user = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (path === '/metrics') return void response.end('');
  if (user === undefined) return send(response, 401, { error: 'unauthorized' });
  if (request.method === 'POST' && path === '/v1/sessions') {
    await readBody(request);
    await pool.query('INSERT INTO plain_limits VALUES ($1, now())', [user]);
    const id = nextId('session');
    await pool.query("INSERT INTO plain_sessions (id, user_id, status) VALUES ($1, $2, 'idle')", [id, user]);
    return send(response, 201, { id });
  }
  const message = /^\/v1\/sessions\/([^/]+)\/messages$/.exec(path);
  if (request.method === 'POST' && message !== null) {
    const sessionId = message[1] as string;
    const body = await readBody(request);
    await pool.query('INSERT INTO plain_limits VALUES ($1, now())', [user]);
    const runId = nextId('run');
    await transaction([
      ['SELECT id FROM plain_sessions WHERE id = $1 FOR UPDATE', [sessionId]],
      ['INSERT INTO plain_messages VALUES ($1, 1, $2)', [sessionId, JSON.stringify({ role: 'user', ...body })]],
      ["INSERT INTO plain_runs VALUES ($1, $2, 'running')", [runId, sessionId]],
      ["UPDATE plain_sessions SET status = 'running' WHERE id = $1", [sessionId]],
    ]);
    runs.set(runId, { events: [], done: false, emitter: new EventEmitter() });
    void runMessage(sessionId, runId, String(body.content ?? ''));
    return send(response, 202, { runId });
  }
  const stream = /^\/v1\/runs\/([^/]+)\/events$/.exec(path);
  const run = stream === null ? undefined : runs.get(stream[1] as string);
  if (request.method === 'GET' && stream !== null && run !== undefined) {
    const streamId = nextId('stream');
    await pool.query('INSERT INTO plain_streams VALUES ($1, $2)', [streamId, stream[1]]);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const write = (line: string) => response.write(`data: ${line}\n\n`);
    for (const line of run.events) write(line);
    const finish = () => {
      run.emitter.off('event', write);
      response.end();
      void pool.query('DELETE FROM plain_streams WHERE id = $1', [streamId]);
    };
    if (run.done) return finish();
    run.emitter.on('event', write);
    run.emitter.once('done', finish);
    return;
  }
  send(response, 404, { error: 'not found' });
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => send(response, 500, { error: String(error) }));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
