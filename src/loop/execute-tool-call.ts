import type { ToolErrorPayload } from '../core/tool-outcome.js';
import { FatalToolError } from '../errors/fatal-tool-error.js';
import { RetryableToolError } from '../errors/retryable-tool-error.js';
import { ToolTimeoutError } from '../errors/tool-timeout-error.js';
import type { GatedCall } from '../gate/gated-call.js';
import type { ToolContext } from '../tools/tool-types.js';
import { untrustedErrorSource } from '../tools/untrusted-source.js';
import { isThenable } from '../util/is-thenable.js';
import { prepareWhileWaiting } from './prepare-while-waiting.js';
import type { RunRuntime } from './run-runtime.js';

/** How an execution ended: the tool's data, or its failure classified. */
export type ToolExecution =
  | { readonly ok: true; readonly data: unknown }
  /** The tool refused (`RetryableToolError`, `FatalToolError`) or a retry-safe tool timed out: the model is told. */
  | { readonly ok: false; readonly failure: 'model'; readonly error: ToolErrorPayload }
  /** The run was stopped while the tool ran: it may have acted. */
  | { readonly ok: false; readonly failure: 'aborted' }
  /** Anything else, or a timeout of a tool that is not retry-safe: for the operator, never the model. */
  | { readonly ok: false; readonly failure: 'infrastructure'; readonly code: string; readonly cause: unknown };

const aborted: ToolExecution = { ok: false, failure: 'aborted' };

/**
 * Executes an allowed call (after `tool:start`) under its time limit (the
 * tool's own `timeoutMs`, kept by the tool itself when it `enforcesTimeout`,
 * else the run's) and classifies how it ended.
 * Precedence: `RetryableToolError`, then `FatalToolError`, then a timeout
 * (for the model only when the tool is `retrySafe`), then the run's abort,
 * then anything else as an infrastructure failure. Never throws (nor
 * rejects). A tool that answers synchronously without a time limit is
 * answered synchronously: no promise, no turn of the microtask queue. A
 * tool error whose text is a third party's (see `untrustedErrorSource`)
 * names its source in the error's `untrusted`.
 *
 * @example
 * const executing = executeToolCall(runtime, call);
 * const execution = executing instanceof Promise ? await executing : executing;
 * if (execution.ok) await claim?.complete(execution);
 */
export function executeToolCall(runtime: RunRuntime, call: GatedCall): ToolExecution | Promise<ToolExecution> {
  const { tool, toolName } = call;
  runtime.emitter.emitDraft({
    runId: '',
    seq: 0,
    at: 0,
    type: 'tool:start',
    step: call.step,
    toolCallId: call.toolCallId,
    tool: toolName,
  });
  const timeoutMs = tool.definition.timeoutMs ?? runtime.toolTimeoutMs;
  // A tool that keeps its own limit (`enforcesTimeout`) gets the run's signal and no timer from here.
  const ownLimit = tool.definition.enforcesTimeout === true && tool.definition.timeoutMs !== undefined;
  if (timeoutMs !== undefined && !ownLimit) return executeLimited(runtime, call, timeoutMs);
  let result: unknown;
  try {
    result = tool.definition.execute(call.args, call.context);
  } catch (error) {
    return classifyFailure(runtime, call, timeoutMs, error);
  }
  // A tool that answers synchronously is not made to wait a microtask for its own answer.
  if (!isThenable(result)) return { ok: true, data: result };
  prepareWhileWaiting(call);
  return awaitAnswer(runtime, call, timeoutMs, result);
}

async function executeLimited(runtime: RunRuntime, call: GatedCall, timeoutMs: number): Promise<ToolExecution> {
  try {
    return { ok: true, data: await executeWithin(call, timeoutMs) };
  } catch (error) {
    return classifyFailure(runtime, call, timeoutMs, error);
  }
}

async function awaitAnswer(
  runtime: RunRuntime,
  call: GatedCall,
  timeoutMs: number | undefined,
  answer: PromiseLike<unknown>,
): Promise<ToolExecution> {
  try {
    return { ok: true, data: await answer };
  } catch (error) {
    return classifyFailure(runtime, call, timeoutMs, error);
  }
}

/** How a call that threw (or whose answer rejected) ended, in the precedence `executeToolCall` states. */
function classifyFailure(
  runtime: RunRuntime,
  call: GatedCall,
  timeoutMs: number | undefined,
  error: unknown,
): ToolExecution {
  const { tool, toolName } = call;
  const texts = runtime.texts;
  if (RetryableToolError.isInstance(error) || FatalToolError.isInstance(error)) {
    // The tool's own text reaches the model: a third party's, when the tool or the error says so.
    const source = untrustedErrorSource({ definition: tool.definition, error });
    const untrusted = source === undefined ? {} : { untrusted: source };
    const { code, retryable } = error;
    const message = (retryable ? texts.retryable : texts.refused)({ tool: toolName, code, message: error.message });
    return { ok: false, failure: 'model', error: { code, retryable, message, ...untrusted } };
  }
  const timedOut = ToolTimeoutError.isInstance(error);
  if (timedOut && timeoutMs !== undefined) {
    if (tool.definition.retrySafe === true) {
      const message = texts.timedOut({ tool: toolName, seconds: error.timeoutMs / 1000 });
      return { ok: false, failure: 'model', error: { code: 'tool_timeout', retryable: true, message } };
    }
    return { ok: false, failure: 'infrastructure', code: 'tool_timeout', cause: error };
  }
  if (runtime.signal.aborted) return aborted;
  return {
    ok: false,
    failure: 'infrastructure',
    code: timedOut ? 'tool_timeout' : 'infrastructure_failure',
    cause: error,
  };
}

async function executeWithin(call: GatedCall, timeoutMs: number): Promise<unknown> {
  const { tool, context } = call;
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal.reason);
  if (context.signal.aborted) onAbort();
  else context.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = new ToolTimeoutError({ toolName: tool.definition.name, timeoutMs });
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  const limited: ToolContext = { ...context, signal: controller.signal };
  try {
    const answer = tool.definition.execute(call.args, limited);
    prepareWhileWaiting(call);
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
  }
}
