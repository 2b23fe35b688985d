import type { FieldFacts } from './schema-guide.js';

/** What is wrong with a field, beyond "it does not match what is expected". */
export type IssueProblem =
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'missing_with'; readonly property: string }
  | { readonly kind: 'several_variants' }
  | { readonly kind: 'duplicates'; readonly first: number; readonly second: number }
  | {
      readonly kind: 'unknown_field';
      /** The object's label; undefined for the top-level arguments. */
      readonly container: string | undefined;
      /** The fields the object accepts; undefined when not known. */
      readonly allowed: readonly string[] | undefined;
      readonly patterns: readonly string[];
    }
  | { readonly kind: 'field_name' }
  | { readonly kind: 'not_json'; readonly required: readonly string[] }
  | { readonly kind: 'not_object'; readonly required: readonly string[] }
  | { readonly kind: 'too_deep'; readonly limit: number }
  | { readonly kind: 'unknown_tool'; readonly available: readonly string[]; readonly suggestions: readonly string[] };

/** What the model sent, as an issue line reports it. */
export type Received =
  | { readonly kind: 'omit' }
  | { readonly kind: 'nothing' }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }
  /** A required field is missing and `sent`, an undeclared field, is likely it under another name. */
  | { readonly kind: 'misnamed'; readonly sent: string; readonly wanted: string }
  /** A string sent for an enum, one spelling away from the allowed value `nearest`. */
  | { readonly kind: 'near_value'; readonly value: string; readonly nearest: string }
  /** A value refused for its field that another top-level argument, `field`, would take as it is. */
  | { readonly kind: 'other_field'; readonly value: unknown; readonly field: string }
  /** The same value sent as the optional argument `extra` and as `field`, which takes it: `extra` is to go. */
  | { readonly kind: 'sent_twice'; readonly value: unknown; readonly field: string; readonly extra: string };

/**
 * A field's expectation in words, rendered once per field schema and locale:
 * `expected` is the phrase with the description (`an integer >= 1 (Refund
 * amount in cents)`), `hint` the example sentence with its leading space, or ''.
 */
export interface FieldWording {
  readonly expected: string;
  readonly hint: string;
}

/** The parts of one issue line; each locale words them its own way. */
export interface IssueParts {
  /** The field as shown between backticks: the path without `$.`, or the tool name for the whole call. */
  readonly field: string;
  readonly toolName: string;
  readonly problem: IssueProblem;
  readonly wording: FieldWording | undefined;
  readonly received: Received;
}

/** The parts of an issue line before what was sent. */
export type IssueStart = Omit<IssueParts, 'received'>;

/**
 * One whole issue line (the issue's `message`), without the leading `- `.
 *
 * @example
 * issueLine(validationTexts('en'), { field: 'order_id', toolName: 'apply_refund', problem, wording, received });
 */
export function issueLine(texts: ValidationTexts, parts: IssueParts): string {
  return texts.issueStart(parts) + texts.received(parts.received);
}

/** Every model-facing sentence of the validation layer, in one language. */
export interface ValidationTexts {
  header(options: { toolName: string; count: number; subject: 'arguments' | 'call' }): string;
  /** What a field expects, in words; cache it per field. */
  fieldWording(field: FieldFacts): FieldWording;
  /** One issue up to what was sent, without the leading `- `. */
  issueStart(parts: IssueStart): string;
  /** The closing part of an issue line: what was sent (with a leading space where the language wants one), or ''. */
  received(received: Received): string;
  /** `received` for a value that was sent. */
  sentValue(value: unknown): string;
  /** The line closing a list that was cut short. */
  notListed(count: number): string;
}

/** Received strings longer than this are cut in messages. */
export const maxEchoLength = 60;

/**
 * A string as JSON, cut to `maxEchoLength` characters with `…` before the
 * closing quote when longer (`isCutShort` says whether it was).
 *
 * @example
 * quoteShort('abc'); // '"abc"'
 */
export function quoteShort(text: string): string {
  if (text.length <= maxEchoLength) return quote(text);
  return `${quote(cutText(text, maxEchoLength)).slice(0, -1)}…"`;
}

/**
 * Whether `quoteShort` cuts a text.
 *
 * @example
 * isCutShort('x'.repeat(61)); // true
 */
export function isCutShort(text: string): boolean {
  return text.length > maxEchoLength;
}

/** Characters JSON escapes in a string (surrogates included, so lone ones are escaped as JSON.stringify does). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes.
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`, without its cost for the common text that needs no escaping. */
function quote(text: string): string {
  return escaped.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * The first `length` UTF-16 units of `text`, one less when the cut would
 * split a surrogate pair.
 *
 * @example
 * cutText('abcdef', 3); // 'abc'
 */
export function cutText(text: string, length: number): string {
  if (text.length <= length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}
