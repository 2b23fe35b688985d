/**
 * One server process of the server crash test: `createServer` on
 * DIRECTORY (the shop, its offline scripted chat at full speed), listening
 * on 127.0.0.1 at a free port. It prints `listening URL` once it accepts
 * requests (having recovered whatever a killed predecessor left).
 *
 * The first request carrying the arm header (`server-crash-plan.ts`) arms
 * the crash points: from its arrival, each point passed is numbered — the
 * request's arrival, its body read, every SQLite statement the process runs
 * (`run`, `get`, `all`, `iterate`: reads, writes, BEGIN and COMMIT of
 * every transaction), and the response handed to the socket — until the
 * run it started has finished. With `--kill-at N` the process SIGKILLs
 * itself right after point N, writing `crash N LABEL` to DIRECTORY/crash.txt
 * first; without it, it prints `points N` once the run has finished (the
 * number of points the whole POST path passed), and with `--trace` it
 * writes every point to DIRECTORY/points.txt. SIGTERM closes it cleanly.
 *
 * node server-crash-driver.mjs DIRECTORY [--kill-at N] [--trace]
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { openShopDomain, shopChatScripts } from '../../examples/shop/shop-domain.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { createServer } from '../../src/server/create-server.js';
import { armHeader, crashAuth } from './server-crash-plan.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'kill-at': { type: 'string' }, trace: { type: 'boolean', default: false } },
});
const directory = positionals[0];
if (directory === undefined) {
  process.stderr.write('usage: server-crash-driver DIRECTORY [--kill-at N] [--trace]\n');
  process.exit(2);
}
const killAt = values['kill-at'] === undefined ? undefined : Number(values['kill-at']);
const append = (file: string, line: string) => appendFileSync(join(directory, file), `${line}\n`);

let armed = false;
let points = 0;
const point = (label: string) => {
  if (!armed) return;
  points += 1;
  if (values.trace) append('points.txt', `${points} ${label}`);
  if (points === killAt) {
    append('crash.txt', `crash ${points} ${label}`);
    process.kill(process.pid, 'SIGKILL');
  }
};

// Every statement of every connection passes through the one Statement prototype of better-sqlite3.
const probe = new Database(':memory:');
const statements = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
probe.close();
for (const method of ['run', 'get', 'all', 'iterate'] as const) {
  const original = statements[method] as (this: { source: string }, ...args: unknown[]) => unknown;
  statements[method] = function (this: { source: string }, ...args: unknown[]) {
    const result = original.apply(this, args);
    point(`${method} ${this.source.replace(/\s+/g, ' ').trim().slice(0, 60)}`);
    return result;
  };
}

// The shop, as startServer serves it by default (this file is bundled: the example is imported, not looked up).
const shop = openShopDomain({ dataDir: directory });
const server = createServer({
  dataDir: directory,
  tools: shop.tools,
  gateRules: shop.gateRules,
  model: (locale) => new ScriptedModel({ script: shopChatScripts[locale] }),
  auth: crashAuth,
  streamingDelay: false,
  shutdownGraceMs: 2000,
  onError: (error) => append('errors.txt', String(error instanceof Error ? (error.stack ?? error.message) : error)),
  logger: (entry) => append('server-log.txt', JSON.stringify(entry)),
});
const http = serve({ fetch: server.app.fetch, port: 0, hostname: '127.0.0.1' }, (address) => {
  process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
let seenArmed = false;
http.prependListener('request', (request, response) => {
  if (seenArmed || request.headers[armHeader] === undefined) return;
  seenArmed = true;
  armed = true;
  point('request received');
  request.once('end', () => point('request body read'));
  response.once('finish', () => {
    point(`response sent (${response.statusCode})`);
    void server.idle().then(() =>
      // The events of the run's last moments are written on the next turns of the event loop.
      setTimeout(() => {
        armed = false;
        process.stdout.write(`points ${points}\n`);
      }, 100),
    );
  });
});
process.once('SIGTERM', () => {
  http.close();
  void server.close().then(() => process.exit(0));
});
