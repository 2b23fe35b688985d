import type { Locale } from '../tools/tool-types.js';
import type { ValidationTexts } from './issue-parts.js';
import { displayName } from './json-path.js';
import type { ValidationIssue } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/** Lines beyond this many are summarised; a model fixes the first ones and is told the rest next round. */
const maxListedIssues = 20;

/** Headers already worded, per texts and tool; most refusals repeat a handful of them. */
const headers = new WeakMap<ValidationTexts, Map<string, string>>();
const maxCachedHeaders = 512;

function headerOf(texts: ValidationTexts, toolName: string, count: number, subject: 'arguments' | 'call'): string {
  let cache = headers.get(texts);
  if (cache === undefined) {
    cache = new Map();
    headers.set(texts, cache);
  }
  const key = `${subject === 'call' ? 'c' : 'a'}${count} ${toolName}`;
  let header = cache.get(key);
  if (header === undefined) {
    if (cache.size >= maxCachedHeaders) cache.clear();
    header = texts.header({ toolName: displayName(toolName), count, subject });
    header.charCodeAt(0);
    cache.set(key, header);
  }
  return header;
}

/**
 * The one tool message a model gets for a refused call: a header saying the
 * call was not run and how many problems it has, then one line per issue
 * (`- \`field\`: expected …. Valid example: …. You sent …`).
 *
 * @example
 * formatValidationMessage({ toolName: 'apply_refund', issues: validate(args) });
 * // The call to apply_refund was not run: 3 problems with its arguments. Fix all of them and call apply_refund again.
 * // - `order_id`: expected a string matching ^SO\d{8}$ (Order number: SO followed by 8 digits). Valid example: "SO20260901". You sent the number 12345.
 * // …
 */
export function formatValidationMessage({
  toolName,
  issues,
  locale = 'en',
}: {
  toolName: string;
  issues: readonly ValidationIssue[];
  locale?: Locale;
}): string {
  const texts = validationTexts(locale);
  const subject = issues.some((issue) => issue.code === 'unknown_tool') ? 'call' : 'arguments';
  let message = headerOf(texts, toolName, issues.length, subject);
  const listed = Math.min(issues.length, maxListedIssues);
  for (let index = 0; index < listed; index += 1) message += `\n- ${issues[index]?.message}`;
  if (issues.length > listed) message += `\n${texts.notListed(issues.length - listed)}`;
  return message;
}
