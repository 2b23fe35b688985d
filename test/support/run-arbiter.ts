import { spawn } from 'node:child_process';

/** What one `arbiter` process did. */
export interface ArbiterRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** How long it ran, start to close. */
  readonly ms: number;
}

/**
 * Runs the real CLI from source (`src/cli/main.ts` through tsx) as a user
 * runs `arbiter ARGS…`: no colour, no store URL from the test's own
 * environment unless `environment` sets one; killed after `killAfterMs`.
 *
 * @example
 * const ran = await runArbiter(['approvals', '--data-dir', empty], { DATABASE_URL: 'postgres://u@h/db' });
 */
export function runArbiter(
  args: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = {},
  killAfterMs = 60_000,
): Promise<ArbiterRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...process.env, NO_COLOR: '1', ARBITER_STORE_URL: '', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}
