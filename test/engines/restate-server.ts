/**
 * A throwaway `restate-server` for the engine tests: the npm package's
 * binary (installed with --ignore-scripts), its own base directory,
 * listening on 127.0.0.1 only (`--bind-ip`) on random ports read back from
 * its log; and a TCP balancer in front of the workers, as a deployment's
 * load balancer, that sends each new connection to a live worker.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  /** Registers (or, with force, replaces) the deployment at `uri`: what a deploy of a new worker version does. */
  register(uri: string): Promise<void>;
  stop(): Promise<void>;
}

export function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  const platform = `@restatedev/restate-server-${process.platform}-${process.arch === 'x64' ? 'x64' : 'arm64'}`;
  return join(dirname(require.resolve(`${platform}/package.json`)), 'bin', 'restate-server');
}

export async function startRestateServer({ readyWithinMs = 120_000 } = {}): Promise<RestateServer> {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-restate-'));
  const child: ChildProcess = spawn(
    restateServerBinary(),
    [
      '--base-dir',
      directory,
      '--bind-ip',
      '127.0.0.1',
      '--use-random-ports',
      'true',
      '--listen-mode',
      'tcp',
      '--no-logo',
      '--log-disable-ansi-codes',
      'true',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  let adminUrl: string | undefined;
  let ingressUrl: string | undefined;
  while (adminUrl === undefined || ingressUrl === undefined) {
    if (child.exitCode !== null) throw new Error(`restate-server exited:\n${log}`);
    if (Date.now() - started > readyWithinMs) throw new Error(`restate-server not up in ${readyWithinMs} ms:\n${log}`);
    const admin = /Admin API starting on: (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
    const ingress = /Ingress HTTP listening[\s\S]*?server\.port: (\d+)/.exec(log)?.[1];
    adminUrl = admin;
    ingressUrl = ingress === undefined ? undefined : `http://127.0.0.1:${ingress}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const admin = adminUrl;
  for (;;) {
    const healthy = await fetch(`${admin}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() - started > readyWithinMs) throw new Error(`restate-server not healthy:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    ingressUrl,
    adminUrl: admin,
    register: async (uri) => {
      for (let attempt = 1; ; attempt += 1) {
        const response = await fetch(`${admin}/deployments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ uri, force: true }),
        });
        if (response.ok) return;
        if (attempt >= 20) throw new Error(`registering ${uri}: ${response.status} ${await response.text()}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A TCP balancer on 127.0.0.1: each new connection goes to the next live worker port; connections are counted per port. */
export async function startBalancer(): Promise<{
  readonly url: string;
  setTargets(ports: readonly number[]): void;
  /** The worker ports with a connection open now (the invocation it serves). */
  busyPorts(): number[];
  stop(): Promise<void>;
}> {
  let targets: readonly number[] = [];
  let next = 0;
  const open = new Map<number, number>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    const tryConnect = (attempt: number) => {
      const port = targets[(next + attempt) % Math.max(targets.length, 1)];
      if (port === undefined || attempt >= targets.length) {
        client.destroy();
        return;
      }
      const upstream = net.connect({ host: '127.0.0.1', port });
      let connected = false;
      upstream.once('error', () => {
        if (!connected) tryConnect(attempt + 1);
        else client.destroy();
      });
      upstream.once('connect', () => {
        connected = true;
        next = (next + attempt + 1) % targets.length;
        open.set(port, (open.get(port) ?? 0) + 1);
        sockets.add(upstream);
        upstream.once('close', () => {
          sockets.delete(upstream);
          open.set(port, (open.get(port) ?? 1) - 1);
          client.destroy();
        });
        client.once('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      });
    };
    tryConnect(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the balancer has no port');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    setTargets: (ports) => {
      targets = [...ports];
      next = 0;
    },
    busyPorts: () => [...open.entries()].filter(([, count]) => count > 0).map(([port]) => port),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
