/**
 * Test support for `test/cluster/`: real `arbiter serve --store postgres://…`
 * processes (via tsx) on one throwaway cluster, sharing one data directory
 * (the shop's SQLite database, whose refunds table counts side effects),
 * and the HTTP and SSE calls the tests make to them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { ExternalEvent } from '../../src/events/external-event.js';
import { requestJson } from '../../src/server/test-support/request-json.js';

export const root = join(import.meta.dirname, '..', '..');
export const leaseMs = 2000;
export const tokens = {
  alice: 'alice-token-0001-0123456789abcdef',
  bob: 'bob-token-0002-0123456789abcdef0123',
  staff: 'staff-token-0003-0123456789abcdef',
} as const;

export interface Node {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  killed: boolean;
  /** What the node printed on stdout (its log lines), for a failing test to show. */
  readonly output: () => string;
}

/** The nodes started on one data directory (`directory`/data, `directory`/auth.json with `tokens`). */
export class NodePool {
  readonly nodes: Node[] = [];
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
    writeFileSync(
      join(directory, 'auth.json'),
      JSON.stringify({
        tokens: [
          { token: tokens.alice, tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
          { token: tokens.bob, tenantId: 'shop', userId: 'C1002', roles: ['customer'] },
          { token: tokens.staff, tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
        ],
      }),
    );
  }

  /** The nodes not killed or stopped. */
  live(): Node[] {
    return this.nodes.filter((node) => !node.killed);
  }

  /** Starts `arbiter serve` named `name` on `storeUrl`; resolves once it listens. */
  async start(
    name: string,
    storeUrl: string,
    extra: readonly string[] = [],
    env: Readonly<Record<string, string>> = {},
  ): Promise<Node> {
    const authFile = join(this.directory, 'auth.json');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'serve',
        ...['--port', '0', '--data-dir', join(this.directory, 'data'), '--auth', authFile],
        ...['--store', storeUrl, '--node-id', name, '--lease-ms', String(leaseMs)],
        ...extra,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/[^\s]+)/.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`node ${name} exited (${code}) before listening:\n${stderr}`)));
    });
    const node: Node = { name, url, child, exited, killed: false, output: () => stdout };
    // A node that dies without being stopped or killed says why, beside whatever the test then reports.
    child.once('exit', (code, signal) => {
      if (!node.killed && code !== 0) console.error(`node ${name} exited (${code ?? signal}):\n${stderr.slice(-4000)}`);
    });
    this.nodes.push(node);
    return node;
  }

  /** SIGTERM to every live node; resolves once all have exited. */
  async stopAll(): Promise<void> {
    for (const node of this.nodes) {
      if (!node.killed) {
        node.killed = true;
        node.child.kill('SIGTERM');
      }
    }
    await Promise.all(this.nodes.map((node) => node.exited));
  }

  /** Follows a run to its end across nodes: reconnects with `Last-Event-ID` to a live node when one dies. */
  async followToEnd(
    first: Node,
    runId: string,
    lastEventId: number,
    onEvent: (event: ExternalEvent) => void = () => {},
    token: string = tokens.alice,
  ): Promise<ExternalEvent[]> {
    const events: ExternalEvent[] = [];
    let node = first;
    const started = Date.now();
    while (Date.now() - started < 60_000) {
      await readEvents(
        node,
        runId,
        events.at(-1)?.seq ?? lastEventId,
        (event) => {
          events.push(event);
          onEvent(event);
        },
        token,
      );
      const last = events.at(-1);
      // A run that stops for approval ends its stream too: the caller decides and follows again.
      if (last?.type === 'run:end' || last?.type === 'run:error') return events;
      const live = this.live();
      node = live[(live.indexOf(node) + 1) % live.length] ?? first;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`run ${runId} did not end within a minute; read ${events.length} events`);
  }

  /** Refunds in the shop's table, all of them or those of one order. */
  countRefunds(orderId?: string): number {
    const shop = new Database(join(this.directory, 'data', 'shop.db'), { readonly: true, fileMustExist: true });
    try {
      const row = (
        orderId === undefined
          ? shop.prepare('SELECT COUNT(*) AS count FROM refunds').get()
          : shop.prepare('SELECT COUNT(*) AS count FROM refunds WHERE order_id = ?').get(orderId)
      ) as { count: number };
      return row.count;
    } finally {
      shop.close();
    }
  }
}

/** Creates database `name` on the cluster and answers its connection string. */
export async function createDatabase(connectionString: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return connectionString.replace(/\/postgres$/, `/${name}`);
}

export function request(
  node: { readonly url: string },
  path: string,
  { token = tokens.alice, ...rest }: { token?: string; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return requestJson(node.url, path, { token, ...rest });
}

/**
 * Follows a run over SSE on `node`, from `lastEventId`, until a terminal
 * event or the connection drops.
 */
export async function readEvents(
  node: Node,
  runId: string,
  lastEventId: number,
  onEvent: (event: ExternalEvent) => void,
  token: string = tokens.alice,
): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    const response = await fetch(`${node.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': String(lastEventId) },
      signal: controller.signal,
    });
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = response.body.getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim());
        if (data.length === 0) continue;
        const event = JSON.parse(data.join('\n')) as ExternalEvent;
        onEvent(event);
        if (event.type === 'run:end' || event.type === 'run:error') return;
      }
    }
  } catch {
    // The node died under the connection: the caller reconnects elsewhere.
  } finally {
    clearTimeout(timer);
  }
}

/** The scripted model's step that asks for a damaged-goods refund of `amountCents` on `orderId`. */
export function refundStep(orderId: string, amountCents: number): Record<string, unknown> {
  return {
    call: {
      name: 'apply_refund',
      arguments: {
        order_id: orderId,
        amount_cents: amountCents,
        reason_category: 'damaged',
        reason: 'The mug arrived chipped.',
      },
    },
  };
}

/** Follows every run to its end (as alice) and counts how they ended: `{ completed: 3, awaiting_approval: 1 }`. */
export async function followRunsToEnd(
  pool: NodePool,
  runs: readonly { readonly node: Node; readonly runId: string }[],
): Promise<Record<string, number>> {
  const ends = await Promise.all(
    runs.map(async ({ node, runId }) => (await pool.followToEnd(node, runId, 0, () => {}, tokens.alice)).at(-1)),
  );
  const stopReasons: Record<string, number> = {};
  for (const end of ends) {
    const reason = end?.type === 'run:end' ? (end as { stopReason: string }).stopReason : String(end?.type);
    stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
  }
  return stopReasons;
}
