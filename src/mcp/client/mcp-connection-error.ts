import { ArbiterError } from '../../errors/arbiter-error.js';

const marker = 'arbiter.error.mcp_connection';
const symbol = Symbol.for(marker);

/**
 * An MCP server could not be reached, or the connection failed under a
 * call that may already have acted. For the operator, never the model: a
 * run whose MCP call fails this way ends with `run:error`.
 *
 * @example
 * throw new McpConnectionError({ server: 'files', message: 'MCP server "files" could not be started: spawn ENOENT' });
 */
export class McpConnectionError extends ArbiterError {
  readonly code = 'mcp_connection_failed' as const;
  readonly [symbol] = true;
  /** The server's name in the config. */
  readonly server: string;

  constructor({ server, message, cause }: { server: string; message: string; cause?: unknown }) {
    super(message, { cause });
    this.server = server;
  }

  static override isInstance(error: unknown): error is McpConnectionError {
    return ArbiterError.hasMarker(error, marker);
  }
}
