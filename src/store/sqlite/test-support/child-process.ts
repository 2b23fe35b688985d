import { type ChildProcess, spawn } from 'node:child_process';

/** A test's child process, started and seen saying `marker`. */
export interface MarkedChild {
  readonly child: ChildProcess;
  /** Settles when the child has exited (killed or not). */
  readonly exited: Promise<void>;
}

/**
 * Runs a TypeScript script of the repository in a child Node process (through
 * tsx) and resolves once it has printed `marker` on its standard output; rejects,
 * with what it wrote on standard error, when it exits before.
 *
 * @example
 * const { child, exited } = await startChildUntil('src/store/sqlite/test-support/checkpoint-child.ts', [path], 'writing');
 * child.kill('SIGKILL');
 * await exited;
 */
export async function startChildUntil(script: string, args: readonly string[], marker: string): Promise<MarkedChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(marker)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before printing ${marker}: ${stderr}`)));
  });
  return { child, exited };
}
