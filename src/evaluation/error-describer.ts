import type { Locale } from '../core/locale.js';
import type { ToolErrorPayload } from '../core/tool-outcome.js';
import { type DescribeToolError, describeFullError } from '../loop/describe-tool-error.js';
import { loopTexts } from '../loop/loop-texts.js';

/**
 * How errors are worded for the model in the message-quality experiment.
 * `full` is arbiter's message (field, expectation, example, what was
 * sent); `field_only` names the field and nothing else; `vague` says only
 * "Tool execution failed". The latter two exist to measure what message
 * quality is worth.
 *
 * @example
 * const styles: ErrorStyle[] = ['full', 'field_only', 'vague'];
 */
export type ErrorStyle = 'full' | 'field_only' | 'vague';

function describeFieldOnly(error: ToolErrorPayload, locale: Locale): string {
  const fields = (error.issues ?? []).map((issue) => issue.path.replace(/^\$\.?/, '')).filter((field) => field !== '');
  if (fields.length === 0)
    return locale === 'zh-CN' ? `调用失败（${error.code}）。` : `The call failed (${error.code}).`;
  return fields
    .map((field) => (locale === 'zh-CN' ? `参数 ${field} 不正确。` : `${field} has the wrong format.`))
    .join(' ');
}

function describeVaguely(_error: ToolErrorPayload, locale: Locale): string {
  return loopTexts(locale).vague();
}

/**
 * The `describeError` of a style, for `runAgent`.
 *
 * @example
 * await runAgent({ model, tools, messages, describeError: errorDescriber('vague') });
 */
export function errorDescriber(style: ErrorStyle): DescribeToolError {
  if (style === 'vague') return describeVaguely;
  if (style === 'field_only') return describeFieldOnly;
  return describeFullError;
}
