/**
 * How the scripted model reads a tool message: only from its text, the way a
 * language model would. Nothing here looks at arbiter's internal data.
 */
export type ToolFeedback =
  | { readonly kind: 'result'; readonly data: unknown }
  | { readonly kind: 'invalid'; readonly issues: readonly FeedbackIssue[] }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'repeated' }
  | { readonly kind: 'unclear'; readonly text: string };

export interface FeedbackIssue {
  readonly field: string;
  readonly pattern: string | undefined;
  readonly example: unknown;
  readonly hasExample: boolean;
  readonly allowed: readonly unknown[] | undefined;
  readonly expects: 'string' | 'number' | 'integer' | undefined;
}

const issueLine = /^- `([^`]+)`[:：]\s?(.*)$/gm;
const examplePattern = /(?:Valid example|合法示例)[:：]\s?(.+?)(?:\.\s|。|\.$)/;
const allowedPattern = /(?:Allowed values|可选值)[:：]\s?(.+?)(?:\.\s|。|\.$)/;
const regexPattern = /(?:matching|匹配)\s+(\S+)/;

/**
 * Classifies a tool message. Results are JSON; refusals, repeats and
 * validation reports are recognised by their wording; anything else is
 * unclear.
 *
 * @example
 * readToolFeedback('Tool execution failed'); // { kind: 'unclear', text: 'Tool execution failed' }
 */
export function readToolFeedback(content: string): ToolFeedback {
  try {
    return { kind: 'result', data: JSON.parse(content) as unknown };
  } catch {
    // Not a result: read it as an error text.
  }
  if (/^(Not run: you already called|未执行：你已经用完全相同的参数)/.test(content)) return { kind: 'repeated' };
  const refusal = /^(?:Refused|已拒绝)[^:：]*[:：]\s?(.*?)(?:\s(?:Do not call|不要为此)|$)/s.exec(content);
  if (refusal !== null) return { kind: 'refused', reason: refusal[1] ?? '' };
  const issues: FeedbackIssue[] = [];
  for (const match of content.matchAll(issueLine)) {
    const [, field = '', rest = ''] = match;
    issues.push(readIssue(field, rest));
  }
  if (issues.length > 0) return { kind: 'invalid', issues };
  return { kind: 'unclear', text: content };
}

function readIssue(field: string, text: string): FeedbackIssue {
  const exampleText = examplePattern.exec(text)?.[1];
  const allowedText = allowedPattern.exec(text)?.[1];
  const example = exampleText === undefined ? undefined : parseJson(exampleText);
  const allowed = allowedText === undefined ? undefined : parseJson(`[${allowedText}]`);
  // The expectation, without the field's own description in parentheses (which may say anything).
  const expected = (text.split(/You sent|你传的是|你没有传/)[0] ?? '').replace(/\([^)]*\)|（[^）]*）/g, '');
  const expects = /an integer|整数/.test(expected)
    ? 'integer'
    : /a number|数字|数值/.test(expected)
      ? 'number'
      : /string|字符串/.test(expected)
        ? 'string'
        : undefined;
  return {
    field,
    pattern: regexPattern.exec(text)?.[1]?.replace(/(\$)[.。]$/, '$1'),
    example: example?.value,
    hasExample: example !== undefined,
    allowed: Array.isArray(allowed?.value) ? allowed.value : undefined,
    expects,
  };
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
