import { ArbiterError } from '../errors/arbiter-error.js';
import type { RunResult } from './run-agent.js';
import type { RunProgress } from './run-progress.js';
import { runResult } from './run-result.js';
import type { RunRuntime } from './run-runtime.js';
import { totalUsage } from './total-usage.js';

/**
 * Ends the run on an infrastructure failure: `run:error` with the error's
 * code (`internal_error` for anything not an `ArbiterError`), and a result
 * with stop reason `error` that carries it, for the operator.
 *
 * @example
 * try { ... } catch (error) { return failRun(runtime, progress, error); }
 */
export function failRun(runtime: RunRuntime, progress: RunProgress, error: unknown): RunResult {
  const code = ArbiterError.isInstance(error) ? error.code : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  runtime.emitter.emit({ type: 'run:error', code, message, steps: progress.steps, usage: totalUsage(progress) });
  return {
    ...runResult(runtime, progress, 'error', performance.now() - progress.startedAt),
    error: { code, message, cause: error },
  };
}
