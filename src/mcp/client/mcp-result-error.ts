import { ArbiterError } from '../../errors/arbiter-error.js';

const marker = 'arbiter.error.mcp_result';
const symbol = Symbol.for(marker);

/**
 * A call that may have acted (a tool not in the `read` tier) came back with
 * a result arbiter cannot use: malformed, or against the tool's own
 * `outputSchema`. The server may have done what was asked, so the call is
 * neither retried nor handed back to the model as a refusal (which would
 * free its idempotency key for a second try): like a connection lost under
 * such a call, it is for the operator, and the run ends with `run:error`.
 *
 * @example
 * throw new McpResultError({ server: 'files', tool: 'write_file', problem: 'content[0].text is not a string' });
 */
export class McpResultError extends ArbiterError {
  readonly code = 'mcp_invalid_result' as const;
  readonly [symbol] = true;
  /** The server's name in the config. */
  readonly server: string;
  /** The tool's name on the server. */
  readonly tool: string;

  constructor({ server, tool, problem, cause }: { server: string; tool: string; problem: string; cause?: unknown }) {
    super(
      `MCP server "${server}" answered a call of "${tool}", which may have acted, with a result that cannot be used (${problem}); the call was not repeated`,
      { cause },
    );
    this.server = server;
    this.tool = tool;
  }

  static override isInstance(error: unknown): error is McpResultError {
    return ArbiterError.hasMarker(error, marker);
  }
}
