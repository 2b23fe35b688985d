import type { Locale } from '../core/locale.js';
import type { ValidationTexts } from './issue-parts.js';
import { displayName } from './json-path.js';
import type { ValidationIssue } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/** Lines beyond this many are summarised; a model fixes the first ones and is told the rest next round. */
const maxListedIssues = 20;

/** Headers for up to this many problems are kept once worded; a call rarely has more. */
const maxCachedCount = 64;
/** Tools whose headers are kept per locale before the cache starts over. */
const maxCachedTools = 512;

/** What a refusal is about: the call's arguments, or the call itself (a tool that does not exist). */
type Subject = 'arguments' | 'call';

/** A tool's headers already worded, by subject, at the index of their problem count. */
interface ToolHeaders {
  readonly arguments: string[];
  readonly call: string[];
}

/** Headers per locale and tool name; a tool's refusals repeat a handful of them. */
const headers: Readonly<Record<Locale, Map<string, ToolHeaders>>> = { en: new Map(), 'zh-CN': new Map() };

function headerOf(texts: ValidationTexts, locale: Locale, toolName: string, count: number, subject: Subject): string {
  if (count >= maxCachedCount) return texts.header({ toolName: displayName(toolName), count, subject });
  // Like validationTexts, anything but a known locale (from plain JavaScript) is worded in English.
  const byTool = headers[locale] ?? headers.en;
  let toolHeaders = byTool.get(toolName);
  if (toolHeaders === undefined) {
    if (byTool.size >= maxCachedTools) byTool.clear();
    toolHeaders = { arguments: [], call: [] };
    byTool.set(toolName, toolHeaders);
  }
  const worded = toolHeaders[subject];
  let header = worded[count];
  if (header === undefined) {
    header = texts.header({ toolName: displayName(toolName), count, subject });
    // Laid out flat once, so that no message built from it walks its pieces again.
    header.charCodeAt(0);
    worded[count] = header;
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
  let message = headerOf(texts, locale, toolName, issues.length, subjectOf(issues));
  const listed = Math.min(issues.length, maxListedIssues);
  for (let index = 0; index < listed; index += 1) message += `\n- ${issues[index]?.message}`;
  if (issues.length > listed) message += `\n${texts.notListed(issues.length - listed)}`;
  return message;
}

/** A call to a tool that does not exist is wrong as a whole; any other refusal is about its arguments. */
function subjectOf(issues: readonly ValidationIssue[]): Subject {
  for (const issue of issues) if (issue.code === 'unknown_tool') return 'call';
  return 'arguments';
}
