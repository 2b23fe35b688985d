import { stripStrictNulls } from '../models/strip-strict-nulls.js';
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
      /**
       * The one tool message the model gets, every issue in it: a header line,
       * then one `- \`field\`: …` line per issue, whatever refused the call.
       */
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
  nullMeansAbsent = false,
}: {
  registry: ToolSet;
  name: string;
  rawArguments: string;
  locale?: Locale;
  /**
   * The model decodes in strict mode, where optional fields are sent as
   * `null`: read such a `null` as "absent" before validating against the
   * original schema.
   */
  nullMeansAbsent?: boolean;
}): ToolCallValidation {
  const tool = registry.get(name);
  if (tool === undefined) {
    const issues = [unknownToolIssue({ name, available: registry.names, locale })];
    return { ok: false, tool, issues, message: formatValidationMessage({ toolName: name, issues, locale }) };
  }
  const parsed = parseToolArguments({
    toolName: name,
    raw: rawArguments,
    schema: tool.spec.function.parameters,
    locale,
  });
  if (!parsed.ok) {
    const issues = [parsed.issue];
    return { ok: false, tool, issues, message: formatValidationMessage({ toolName: name, issues, locale }) };
  }
  const args = nullMeansAbsent ? stripStrictNulls(parsed.value, tool.spec.function.parameters) : parsed.value;
  for (const bound of tool.boundParameterNames) delete args[bound];
  const issues = tool.validator(locale)(args);
  if (issues.length === 0) return { ok: true, tool, args };
  return { ok: false, tool, issues, message: formatValidationMessage({ toolName: name, issues, locale }) };
}
