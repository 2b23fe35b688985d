/** Everything a tool call can end with, as data. */
export type ToolOutcome =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly error: ToolErrorPayload };

export interface ToolErrorPayload {
  readonly code: string;
  readonly retryable: boolean;
  /** The model-facing text: what went wrong and what to do about it. */
  readonly message: string;
  readonly issues?: readonly ValidationIssueSummary[];
  /**
   * Set when `message` quotes a third party (an MCP server's error text, an
   * upstream body, another agent's words): names that source, as the
   * approval card shows it. The runtime sets it from the tool's
   * `untrustedOutput` or the error's own `untrusted`; the conversation that
   * receives the message is marked as holding untrusted content, like after
   * a result of that tool. Never sent to the model.
   */
  readonly untrusted?: string;
}

/** One problem with one field, as shown to callers of `arbiter validate`. */
export interface ValidationIssueSummary {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}
