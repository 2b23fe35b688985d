import type { Locale } from '../core/locale.js';
import type { ToolErrorPayload } from '../core/tool-outcome.js';

/**
 * Words a failed call's error for the model: the content of its tool
 * message. The loop takes one per run (`RunAgentOptions.describeError`);
 * experiments inject poorer ones to measure what a good message is worth.
 *
 * @example
 * const fieldsOnly: DescribeToolError = (error) => (error.issues ?? []).map((issue) => issue.path).join(', ');
 */
export type DescribeToolError = (error: ToolErrorPayload, locale: Locale) => string;

/**
 * The default: arbiter's whole message (the field, what was expected, a
 * valid example, what was sent; or why a call was refused and what to do).
 *
 * @example
 * await runAgent({ model, tools, messages, describeError: describeFullError });
 */
export function describeFullError(error: ToolErrorPayload): string {
  return error.message;
}
