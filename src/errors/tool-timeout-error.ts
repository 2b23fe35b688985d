import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.tool_timeout';
const symbol = Symbol.for(marker);

/**
 * A tool call ran past its time limit. For a tool that declares itself
 * `retrySafe` the model is told and may retry; otherwise the run stops.
 *
 * @example
 * throw new ToolTimeoutError({ toolName: 'query_order', timeoutMs: 5000 });
 */
export class ToolTimeoutError extends ArbiterError {
  readonly code = 'tool_timeout' as const;
  readonly [symbol] = true;
  readonly toolName: string;
  readonly timeoutMs: number;

  constructor({
    toolName,
    timeoutMs,
    cause,
  }: {
    toolName: string;
    timeoutMs: number;
    /** What the tool's own client reported, when the tool keeps its time limit itself. */
    cause?: unknown;
  }) {
    super(`tool "${toolName}" did not finish within ${timeoutMs} ms`, { cause });
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
  }

  static override isInstance(error: unknown): error is ToolTimeoutError {
    return ArbiterError.hasMarker(error, marker);
  }
}
