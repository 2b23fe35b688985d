import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../core/principal.js';
import { runAgent } from '../../loop/run-agent.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { McpServerMount } from './mcp-server-mount.js';
import { everythingBin, recordingBus, scriptedCalls, toolMessages } from './test-support/mcp-harness.js';

// server-everything over Streamable HTTP (its `streamableHttp` mode), behind a pass-through proxy
// that records which Authorization header came with each request.
let upstreamPort: number;
let everything: ChildProcess;
let proxy: Server;
let url: string;
const seen: string[] = [];

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function startEverything(): Promise<ChildProcess> {
  const child = spawn(everythingBin, ['streamableHttp'], {
    env: { ...process.env, PORT: String(upstreamPort) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on port')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${output}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  upstreamPort = await freePort();
  everything = await startEverything();
  proxy = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.headers.authorization ?? '-'}`);
    const upstream = request(
      { host: '127.0.0.1', port: upstreamPort, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}, 30_000);
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await stop(everything);
});

const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: [] };
const bob: Principal = { tenantId: 'acme', userId: 'bob', roles: [] };

describe('MCP client over Streamable HTTP', () => {
  it('mounts, calls with progress, and sends each principal’s own bearer token on its own connection', async () => {
    const mount = await McpServerMount.open({
      server: {
        name: 'web',
        url,
        bearer: 'listing-token',
        perPrincipal: (principal) =>
          principal.userId === 'alice' ? { bearer: 'alice-token' } : { bearer: 'bob-token' },
      },
    });
    try {
      const registry = new ToolRegistry();
      mount.attach(registry);
      // 2026-07-28 was offered (server/discover) and declined: server-everything is built on SDK 1.x.
      expect(await mount.connection.protocolVersion()).toBe('2025-11-25');
      expect(registry.get('web_echo')?.definition.sideEffect).toBe('read');
      expect(seen.every((line) => line.endsWith('Bearer listing-token'))).toBe(true);
      seen.length = 0;
      const call = async (principal: Principal, message: string) => {
        const { events, seen: events_ } = recordingBus();
        const result = await runAgent({
          model: scriptedCalls(
            { name: 'web_echo', arguments: { message } },
            { name: 'web_trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
          ),
          tools: registry,
          principal,
          events,
          messages: [{ role: 'user', content: 'go' }],
        });
        return { tools: toolMessages(result.messages), events: events_ };
      };
      const [forAlice, forBob] = await Promise.all([call(alice, 'from alice'), call(bob, 'from bob')]);
      expect(forAlice.tools[0]).toBe('"Echo: from alice"');
      expect(forBob.tools[0]).toBe('"Echo: from bob"');
      expect(forAlice.events.some((event) => event.type === 'tool:progress')).toBe(true);
      const tokens = new Set(seen.map((line) => line.split(' ').slice(1).join(' ')));
      expect(tokens).toEqual(new Set(['Bearer alice-token', 'Bearer bob-token']));
    } finally {
      await mount.close();
    }
  });

  it('opens a new session transparently when the server has forgotten the old one', async () => {
    const mount = await McpServerMount.open({ server: { name: 'web', url } });
    try {
      const registry = new ToolRegistry();
      mount.attach(registry);
      const echo = async (message: string) => {
        const result = await runAgent({
          model: scriptedCalls({ name: 'web_echo', arguments: { message } }),
          tools: registry,
          messages: [{ role: 'user', content: 'go' }],
        });
        return { result, tools: toolMessages(result.messages) };
      };
      expect((await echo('before')).tools).toEqual(['"Echo: before"']);
      // A restarted server knows no sessions: the next request with the old session id is refused.
      await stop(everything);
      everything = await startEverything();
      const after = await echo('after');
      expect(after.result.stopReason).toBe('completed');
      expect(after.tools).toEqual(['"Echo: after"']);
      expect(mount.connection.connects).toBe(2);
    } finally {
      await mount.close();
    }
  });
});
