/**
 * Worker processes of the engine tests: a worker source bundled once with
 * esbuild (packages left to node_modules), started with its environment,
 * ready once it prints `ready`, stopped with SIGTERM (a deploy) or SIGKILL
 * (a crash). Each worker's output is kept for a failing test's message.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';

export async function bundleWorker(source: string, cacheDirectory: string): Promise<string> {
  mkdirSync(cacheDirectory, { recursive: true });
  const esbuild = await import('esbuild');
  const outfile = join(cacheDirectory, basename(source).replace(/\.ts$/, '.mjs'));
  await esbuild.build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return outfile;
}

export interface Worker {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with its exit code or signal once it has exited. */
  readonly exited: Promise<string>;
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<string>;
}

const workers = new Set<Worker>();

export async function startWorker({
  name,
  script,
  environment,
  readyWithinMs = 120_000,
}: {
  name: string;
  script: string;
  environment: Record<string, string>;
  readyWithinMs?: number;
}): Promise<Worker> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? String(code)));
  });
  const worker: Worker = {
    name,
    process: child,
    pid: child.pid ?? -1,
    output: () => output,
    exited,
    kill: async (signal) => {
      child.kill(signal);
      const how = await exited;
      workers.delete(worker);
      return how;
    },
  };
  workers.add(worker);
  const started = Date.now();
  while (!/^ready /m.test(output)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`worker ${name} exited before it was ready:\n${output}`);
    if (Date.now() - started > readyWithinMs)
      throw new Error(`worker ${name} not ready in ${readyWithinMs} ms:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return worker;
}

/** Kills every worker a test left running. */
export async function killAllWorkers(): Promise<void> {
  await Promise.all([...workers].map((worker) => worker.kill('SIGKILL')));
}

/** Polls `read` until it returns something other than undefined. */
export async function pollUntil<Value>(
  read: () => Promise<Value | undefined>,
  { timeoutMs = 120_000, what }: { timeoutMs?: number; what: string },
): Promise<Value> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
