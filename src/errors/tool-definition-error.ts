import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.tool_definition';
const symbol = Symbol.for(marker);

/**
 * A tool definition that cannot be registered: broken schema, duplicate or
 * invalid name, missing fields. Thrown at registration, never during a run.
 *
 * @example
 * throw new ToolDefinitionError({ toolName: 'lookup', message: 'tool "lookup": name must match ^[a-zA-Z0-9_-]{1,64}$' });
 */
export class ToolDefinitionError extends ArbiterError {
  readonly code = 'tool_definition_invalid' as const;
  readonly [symbol] = true;
  readonly toolName: string | undefined;
  /** The parameter the problem is in (`items[].sku` for a nested one), when it is one parameter's. */
  readonly field: string | undefined;

  constructor({
    toolName,
    field,
    message,
    cause,
  }: {
    toolName?: string | undefined;
    field?: string | undefined;
    message: string;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.toolName = toolName;
    this.field = field;
  }

  static override isInstance(error: unknown): error is ToolDefinitionError {
    return ArbiterError.hasMarker(error, marker);
  }
}
