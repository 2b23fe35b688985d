import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';
import type { Locale } from '../tools/tool-types.js';
import { formatValidationMessage } from './format-validation-message.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { unknownToolIssue } from './unknown-tool-issue.js';
import type { ValidationIssue } from './validation-issue.js';

export type ToolCallValidation =
  | { readonly ok: true; readonly tool: RegisteredTool; readonly args: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly tool: RegisteredTool | undefined;
      readonly issues: readonly ValidationIssue[];
      /** The one tool message the model gets, every issue in it. */
      readonly message: string;
    };

/**
 * Everything arbiter checks before a tool runs: the tool exists among those
 * mounted, the arguments are a JSON object, and they satisfy the schema the
 * model was sent. Values for bound parameters sent by the model are ignored.
 * Never throws for anything the model sent.
 *
 * @example
 * const checked = validateToolCall({ registry, name: 'query_order', rawArguments: '{"order_id":12345}' });
 * if (!checked.ok) toolMessage(checked.message);
 */
export function validateToolCall({
  registry,
  name,
  rawArguments,
  locale = 'en',
}: {
  registry: ToolSet;
  name: string;
  rawArguments: string;
  locale?: Locale;
}): ToolCallValidation {
  const tool = registry.get(name);
  if (tool === undefined) {
    const issue = unknownToolIssue({ name, available: registry.names, locale });
    return { ok: false, tool, issues: [issue], message: issue.message };
  }
  const parsed = parseToolArguments({
    toolName: name,
    raw: rawArguments,
    schema: tool.spec.function.parameters,
    locale,
  });
  if (!parsed.ok) {
    return { ok: false, tool, issues: [parsed.issue], message: parsed.issue.message };
  }
  const args = parsed.value;
  for (const bound of tool.boundParameterNames) delete args[bound];
  const issues = tool.validator(locale)(args);
  if (issues.length === 0) return { ok: true, tool, args };
  return { ok: false, tool, issues, message: formatValidationMessage({ toolName: name, issues, locale }) };
}
