import type { ToolCall } from '../core/chat-message.js';
import type { ToolErrorPayload } from '../core/tool-outcome.js';
import { isRoutedToolSet } from '../routing/routed-tool-set.js';
import { routingTexts } from '../routing/routing-texts.js';
import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';
import { validateToolCall } from '../validation/validate-tool-call.js';
import type { RunRuntime } from './run-runtime.js';

/** A proposed call checked: the tool and its validated arguments, or the one error the model reads. */
export type ParsedToolCall =
  | { readonly ok: true; readonly tool: RegisteredTool; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly error: ToolErrorPayload };

/**
 * Checks a proposed call against the mounted tools: the tool exists, the
 * arguments are a JSON object that satisfies its schema (every issue at
 * once), nulls read as the run's model sends them (`runtime.nulls`), and
 * whatever the model sent for a bound parameter dropped. A refusal comes
 * back as an error whose code is the single issue's, or
 * `invalid_arguments` for several. A call to a mounted tool that routing did
 * not send this step is `tool_not_sent` (retryable): the model is told the
 * tool exists, and routing sends it from the next step on (it is in use).
 *
 * @example
 * const checked = parseToolCall(runtime, tools, call);
 * if (!checked.ok) return reportFailure(runtime, head, 'validation', checked.error);
 */
export function parseToolCall(runtime: RunRuntime, tools: ToolSet, call: ToolCall): ParsedToolCall {
  const name = call.function.name;
  if (isRoutedToolSet(tools) && tools.get(name) === undefined && tools.mounted.get(name) !== undefined) {
    const message = routingTexts(runtime.locale).notSent({ tool: name });
    return { ok: false, error: { code: 'tool_not_sent', retryable: true, message } };
  }
  const checked = validateToolCall({
    registry: tools,
    name,
    rawArguments: call.function.arguments,
    locale: runtime.locale,
    nulls: runtime.nulls,
  });
  if (checked.ok) return checked;
  const issues = checked.issues.map(({ path, code, message }) => ({ path, code, message }));
  const code = checked.issues.length === 1 ? (checked.issues[0]?.code ?? 'invalid_arguments') : 'invalid_arguments';
  return { ok: false, error: { code, retryable: true, message: checked.message, issues } };
}
