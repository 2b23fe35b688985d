import type { JsonSchema } from '../core/json-schema.js';
import type { Locale } from '../core/locale.js';
import { issueLine } from './issue-parts.js';
import { displayName } from './json-path.js';
import { jsonTextDepth, nestingDepth } from './nesting-depth.js';
import { schemaGuide } from './schema-guide.js';
import type { ValidationIssue } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/** Deeper arguments are refused before anything recursive walks them: no tool's schema needs more. */
const maxArgumentDepth = 64;

/** The arguments of a call as an object, or the one issue that stops them being one. */
export type ParsedToolArguments =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly issue: ValidationIssue };

/**
 * Parses the arguments string exactly as the model sent it. An empty or
 * blank string is `{}` (models send that for tools without parameters).
 * Text that is not JSON gives an `invalid_json` issue, JSON that is not an
 * object a `not_an_object` issue; both show an example object built from
 * the schema. Never throws.
 *
 * @example
 * const parsed = parseToolArguments({ toolName: 'apply_refund', raw: '{"order_id": "SO2026', schema });
 * if (!parsed.ok) return formatValidationMessage({ toolName: 'apply_refund', issues: [parsed.issue] });
 */
export function parseToolArguments({
  toolName,
  raw,
  schema,
  locale = 'en',
}: {
  toolName: string;
  raw: string;
  schema: JsonSchema;
  locale?: Locale;
}): ParsedToolArguments {
  if (typeof raw !== 'string') {
    if (nestingDepth(raw, maxArgumentDepth) > maxArgumentDepth) {
      return { ok: false, issue: callIssue({ toolName, schema, locale, code: 'too_deep' }) };
    }
    return classify({ toolName, value: raw, raw: undefined, schema, locale });
  }
  if (raw.trim() === '') return { ok: true, value: {} };
  // Text no longer than the limit cannot nest deeper than it (one bracket a level): most arguments are not scanned.
  if (raw.length > maxArgumentDepth && jsonTextDepth(raw, maxArgumentDepth) > maxArgumentDepth) {
    return { ok: false, issue: callIssue({ toolName, schema, locale, code: 'too_deep' }) };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, issue: callIssue({ toolName, schema, locale, code: 'invalid_json', raw }) };
  }
  return classify({ toolName, value, raw, schema, locale });
}

function classify({
  toolName,
  value,
  raw,
  schema,
  locale,
}: {
  toolName: string;
  value: unknown;
  raw: string | undefined;
  schema: JsonSchema;
  locale: Locale;
}): ParsedToolArguments {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return { ok: true, value: value as Record<string, unknown> };
  }
  if (raw === undefined && value === undefined) return { ok: true, value: {} };
  return { ok: false, issue: callIssue({ toolName, schema, locale, code: 'not_an_object', value }) };
}

function callIssue({
  toolName,
  schema,
  locale,
  ...sent
}: {
  toolName: string;
  schema: JsonSchema;
  locale: Locale;
} & (
  | { code: 'invalid_json'; raw: string }
  | { code: 'not_an_object'; value: unknown }
  | { code: 'too_deep' }
)): ValidationIssue {
  const guide = schemaGuide(schema);
  const name = displayName(toolName);
  const required = guide.requiredArguments;
  const texts = validationTexts(locale);
  const message = issueLine(texts, {
    field: name,
    toolName: name,
    problem:
      sent.code === 'invalid_json'
        ? { kind: 'not_json', required }
        : sent.code === 'too_deep'
          ? { kind: 'too_deep', limit: maxArgumentDepth }
          : { kind: 'not_object', required },
    wording: texts.fieldWording({
      facts: undefined,
      description: undefined,
      hint: { kind: 'example', json: guide.argumentsExample() },
    }),
    received:
      sent.code === 'invalid_json'
        ? { kind: 'text', text: sent.raw }
        : sent.code === 'too_deep'
          ? // The problem already says what was sent; echoing it would put English text in every locale.
            { kind: 'omit' }
          : { kind: 'value', value: sent.value },
  });
  return { path: '$', code: sent.code, layer: 'call', message };
}
