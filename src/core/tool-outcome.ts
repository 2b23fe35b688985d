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
}

/** One problem with one field, as shown to callers of `arbiter validate`. */
export interface ValidationIssueSummary {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}
