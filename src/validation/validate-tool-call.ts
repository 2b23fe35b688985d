import type { Locale } from '../core/locale.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { ToolValidator } from './compile-tool-validator.js';
import { formatValidationMessage } from './format-validation-message.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { stripStrictNulls } from './strip-strict-nulls.js';
import { unknownToolIssue } from './unknown-tool-issue.js';
import type { ValidationIssue } from './validation-issue.js';

/** What validation needs of a mounted tool: its spec, its bound parameters and its validator. */
export interface ValidatableTool {
  readonly spec: ToolSpec;
  readonly boundParameterNames: readonly string[];
  validator(locale: Locale): ToolValidator;
}

/** What validation needs of the mounted tools: their names and a lookup. */
export interface ValidatableTools<Tool extends ValidatableTool> {
  readonly names: readonly string[];
  get(name: string): Tool | undefined;
}

/**
 * How a `null` the model sent for an optional argument is read. `as_sent`
 * (default): as the value `null`, validated like any other. `strict_mode`:
 * the model decodes tools in strict mode, where every optional field must be
 * sent and `null` stands for "absent", so such a `null` is removed before
 * validating against the tool's original schema.
 *
 * @example
 * validateToolCall({ registry, name: 'add_order_note', rawArguments: '{"order_id":"SO20260901","note":null}', nulls: 'strict_mode' });
 */
export type NullReading = 'strict_mode' | 'as_sent';

export type ToolCallValidation<Tool extends ValidatableTool = ValidatableTool> =
  | { readonly ok: true; readonly tool: Tool; readonly args: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly tool: Tool | undefined;
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
export function validateToolCall<Tool extends ValidatableTool>({
  registry,
  name,
  rawArguments,
  locale = 'en',
  nulls = 'as_sent',
}: {
  registry: ValidatableTools<Tool>;
  name: string;
  rawArguments: string;
  locale?: Locale;
  /** How a `null` for an optional argument is read (see `NullReading`). Default `as_sent`. */
  nulls?: NullReading;
}): ToolCallValidation<Tool> {
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
  const args = nulls === 'strict_mode' ? stripStrictNulls(parsed.value, tool.spec.function.parameters) : parsed.value;
  for (const bound of tool.boundParameterNames) delete args[bound];
  const issues = tool.validator(locale)(args);
  if (issues.length === 0) return { ok: true, tool, args };
  return { ok: false, tool, issues, message: formatValidationMessage({ toolName: name, issues, locale }) };
}
