import { type IssueParts, isCutShort, quoteShort, type Received, type ValidationTexts } from './issue-parts.js';
import { listHead } from './list-head.js';
import { renderJson } from './render-json.js';
import {
  isEnumOnArray,
  type JsonType,
  numericLimit,
  type SchemaFacts,
  type SchemaLimit,
  textualLimit,
} from './schema-facts.js';
import type { ExampleHint } from './schema-guide.js';

const maxVariantsListed = 6;

const pluralNouns: Readonly<Record<JsonType, string>> = {
  string: 'strings',
  integer: 'integers',
  number: 'numbers',
  boolean: 'booleans',
  object: 'objects',
  array: 'arrays',
  null: 'nulls',
};

/**
 * English validation texts.
 *
 * @example
 * englishTexts.header({ toolName: 'apply_refund', count: 1, subject: 'arguments' });
 * // 'The call to apply_refund was not run: 1 problem with its arguments. Fix it and call apply_refund again.'
 */
export const englishTexts: ValidationTexts = {
  header({ toolName, count, subject }) {
    const problems = `${count} problem${count === 1 ? '' : 's'}`;
    if (subject === 'call') {
      return `The call to ${toolName} was not run: ${problems} with the call. Use one of the available tools instead.`;
    }
    const fix = count === 1 ? 'Fix it' : 'Fix all of them';
    return `The call to ${toolName} was not run: ${problems} with its arguments. ${fix} and call ${toolName} again.`;
  },

  fieldWording({ facts, description, hint }) {
    const expected = facts === undefined ? 'a value' : expectedPhrase(facts);
    return {
      expected: description === undefined ? expected : `${expected} (${description})`,
      hint: hintSentence(hint),
    };
  },

  issueStart(parts) {
    const head = `\`${parts.field}\`: `;
    const described = parts.wording?.expected ?? 'a value';
    const hint = parts.wording?.hint ?? '';
    const { problem } = parts;
    switch (problem.kind) {
      case 'mismatch':
        return `${head}expected ${described}.${hint}`;
      case 'missing':
        return `${head}this required field is missing. Expected ${described}.${hint}`;
      case 'missing_with':
        return `${head}this field is required when \`${problem.property}\` is given. Expected ${described}.${hint}`;
      case 'several_variants':
        return `${head}expected exactly one of these forms, but the value matches more than one: ${described}.${hint}`;
      case 'duplicates':
        return `${head}expected ${described}. Items [${problem.first}] and [${problem.second}] are the same.${hint}`;
      case 'unknown_field':
        return `${head}${unknownFieldSentence(parts.toolName, problem)}`;
      case 'field_name':
        return `${head}this field name is not accepted: field names must be ${described}.`;
      case 'not_json':
        return `${head}the arguments are not valid JSON. Send one JSON object with the arguments as fields${requiredNote(problem.required)}.${hint}`;
      case 'not_object':
        return `${head}expected one JSON object with the arguments as fields${requiredNote(problem.required)}.${hint}`;
      case 'too_deep':
        return `${head}the arguments are nested more than ${problem.limit} levels deep; send a flat object with the arguments as fields.${hint}`;
      case 'unknown_tool':
        return `${head}there is no tool with this name. ${
          problem.available.length > 0
            ? `Available tools: ${withMore(problem.available)}.`
            : 'No tools are available at this point.'
        }${problem.suggestions.length === 0 ? '' : ` Did you mean ${problem.suggestions.join(' or ')}?`}`;
    }
  },

  received: receivedSentence,
  sentValue,

  notListed(count) {
    return `(${count} more problem${count === 1 ? '' : 's'} not listed here: fix the ones above and call again to see the rest.)`;
  },
};

function unknownFieldSentence(
  toolName: string,
  problem: Extract<IssueParts['problem'], { kind: 'unknown_field' }>,
): string {
  const where =
    problem.container === undefined ? `not a parameter of ${toolName}` : `not a field of \`${problem.container}\``;
  const { allowed, patterns } = problem;
  const patternText = patterns.join(' or ');
  if (allowed === undefined) return `${where}; remove it.`;
  if (allowed.length === 0 && patterns.length === 0) return `${where}; remove it. No fields are accepted here.`;
  if (allowed.length === 0) return `${where}; remove it. Field names must match ${patternText}.`;
  const others = patterns.length === 0 ? '' : ` Other field names must match ${patternText}.`;
  return `${where}; remove it. Allowed fields: ${fieldList(allowed)}.${others}`;
}

function requiredNote(required: readonly string[]): string {
  return required.length === 0 ? '' : ` (required: ${fieldList(required)})`;
}

function fieldList(names: readonly string[]): string {
  return withMore(names.map((name) => `\`${name}\``));
}

/** The first items of a list, then "and K more": a long enum or field list must not flood the message. */
function withMore(items: readonly string[], more = 0): string {
  const head = listHead(items);
  const left = head.more + more;
  return left === 0 ? head.shown.join(', ') : `${head.shown.join(', ')} and ${left} more`;
}

function hintSentence(hint: ExampleHint | undefined): string {
  if (hint === undefined) return '';
  return hint.kind === 'example'
    ? ` Valid example: ${hint.json}.`
    : ` Allowed values: ${withMore(hint.json, hint.more)}.`;
}

function receivedSentence(received: Received): string {
  switch (received.kind) {
    case 'omit':
      return '';
    case 'nothing':
      return ' You sent nothing.';
    case 'misnamed':
      return ` You sent \`${received.sent}\` instead; did you mean \`${received.wanted}\`?`;
    case 'value':
      return sentValue(received.value);
    case 'near_value':
      return ` You sent the string ${quoteShort(received.value)}; did you mean ${quoteShort(received.nearest)}?`;
    case 'sent_twice':
      return `${sentValue(received.value).slice(0, -1)}, which is valid for \`${received.field}\`, and you sent it as \`${received.field}\` too: leave \`${received.extra}\` out.`;
    case 'other_field':
      return `${sentValue(received.value).slice(0, -1)}, which is valid for \`${received.field}\`: did you mean to send it as \`${received.field}\`?`;
    case 'text': {
      const { text } = received;
      const note = isCutShort(text) ? ` (${text.length} characters, shortened here)` : '';
      return ` You sent the text ${quoteShort(text)}${note}.`;
    }
  }
}

/** What was sent, as the closing sentence of an issue line: each case one template, so it is few pieces to lay out flat. */
function sentValue(value: unknown): string {
  if (value === null) return ' You sent null.';
  switch (typeof value) {
    case 'string': {
      if (value === '') return ' You sent an empty string "".';
      const quoted = quoteShort(value);
      return isCutShort(value)
        ? ` You sent the string ${quoted} (${value.length} characters, shortened here).`
        : ` You sent the string ${quoted}.`;
    }
    case 'number':
      return ` You sent the number ${String(value)}.`;
    case 'boolean':
      return ` You sent the boolean ${String(value)}.`;
    case 'undefined':
      return ' You sent nothing.';
    case 'object':
      if (Array.isArray(value)) {
        if (value.length === 0) return ' You sent an empty array [].';
        return ` You sent an array of ${value.length} item${value.length === 1 ? '' : 's'}.`;
      }
      return Object.keys(value).length === 0 ? ' You sent an empty object {}.' : ' You sent an object.';
    default:
      return ` You sent a value of type ${typeof value}.`;
  }
}

function expectedPhrase(facts: SchemaFacts): string {
  if (facts.constant !== undefined) return `exactly ${renderJson(facts.constant.value)}`;
  if (facts.allowedValues !== undefined) {
    return isEnumOnArray(facts)
      ? 'an array whose items are one of the allowed values; the schema puts the allowed values on the array itself, so no array can pass: tell the user this tool is misconfigured'
      : 'one of the allowed values';
  }
  const types = facts.types.filter((type) => type !== 'number' || !facts.types.includes('integer'));
  const base = alternatives(types.map((type) => typePhrase(type, facts)));
  if (facts.variants.length === 0) return base === '' ? 'a value' : base;
  const forms = variantsPhrase(facts.variants);
  const variantsCarryType = facts.variants.every(
    (variant) => variant.types.length > 0 && variant.types.every((type) => types.includes(type)),
  );
  return base === '' || variantsCarryType ? forms : `${base} that is ${forms}`;
}

function variantsPhrase(variants: readonly SchemaFacts[]): string {
  const phrases = [...new Set(variants.map(expectedPhrase))];
  if (phrases.length === 1) return phrases[0] ?? 'a value';
  if (phrases.length > maxVariantsListed) return `one of ${phrases.length} accepted forms`;
  if (phrases.length === 2) return `either ${phrases[0]} or ${phrases[1]}`;
  return `one of: ${phrases.slice(0, -1).join('; ')}; or ${phrases.at(-1)}`;
}

function alternatives(phrases: readonly string[]): string {
  if (phrases.length <= 1) return phrases[0] ?? '';
  return `${phrases.slice(0, -1).join(', ')} or ${phrases.at(-1)}`;
}

function typePhrase(type: JsonType, facts: SchemaFacts): string {
  switch (type) {
    case 'string':
      return stringPhrase(facts);
    case 'integer':
    case 'number':
      return numberPhrase(type, facts);
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'object':
      if (facts.requiredFields.length === 0) return 'an object';
      return `an object with the required field${facts.requiredFields.length === 1 ? '' : 's'} ${fieldList(facts.requiredFields)}`;
    case 'array':
      return arrayPhrase(facts);
  }
}

/** Formats a reader knows by name: the value is called what it is, not "a string in email format". */
const formatNouns: Readonly<Record<string, string>> = {
  email: 'an email address',
  'idn-email': 'an email address',
  uri: 'a URI',
  url: 'a URL',
  uuid: 'a UUID',
  date: 'a date',
  'date-time': 'a date and time',
  time: 'a time of day',
  duration: 'an ISO 8601 duration',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a host name',
};

function stringPhrase(facts: SchemaFacts): string {
  const { maxLength, format, pattern } = facts;
  const noun = format === undefined ? undefined : formatNouns[format];
  const minLength = facts.minLength === 0 ? undefined : facts.minLength;
  const nonEmpty = minLength === 1;
  const clauses: string[] = [];
  if (nonEmpty) {
    if (maxLength !== undefined) clauses.push(`of at most ${count(maxLength, 'character')}`);
  } else if (minLength !== undefined && maxLength !== undefined) {
    clauses.push(
      minLength === maxLength
        ? `of exactly ${count(minLength, 'character')}`
        : `of ${minLength} to ${maxLength} characters`,
    );
  } else if (minLength !== undefined) {
    clauses.push(`of at least ${count(minLength, 'character')}`);
  } else if (maxLength !== undefined) {
    clauses.push(`of at most ${count(maxLength, 'character')}`);
  }
  if (format !== undefined && noun === undefined) clauses.push(`in ${format} format`);
  const limits = limitsPhrase(textualLimit(facts.lower), textualLimit(facts.upper));
  if (limits !== '') clauses.push(limits);
  if (pattern !== undefined) clauses.push(`matching ${pattern}`);
  const base = noun ?? (nonEmpty ? 'a non-empty string' : 'a string');
  return clauses.length === 0 ? base : `${base} ${clauses.join(', ')}`;
}

function numberPhrase(type: 'integer' | 'number', facts: SchemaFacts): string {
  const base = type === 'integer' ? 'an integer' : 'a number';
  const limits = limitsPhrase(numericLimit(facts.lower), numericLimit(facts.upper));
  const bounded = limits === '' ? base : `${base} ${limits}`;
  return facts.multipleOf === undefined ? bounded : `${bounded} that is a multiple of ${facts.multipleOf}`;
}

function limitsPhrase(lower: SchemaLimit | undefined, upper: SchemaLimit | undefined): string {
  const parts: string[] = [];
  if (lower !== undefined) parts.push(`${lower.inclusive ? '>=' : '>'} ${lower.value}`);
  if (upper !== undefined) parts.push(`${upper.inclusive ? '<=' : '<'} ${upper.value}`);
  return parts.join(' and ');
}

function arrayPhrase(facts: SchemaFacts): string {
  const { minItems, maxItems } = facts;
  const nonEmpty = minItems === 1 && maxItems === undefined;
  const itemTypes = facts.itemTypes.filter((type) => type !== 'number' || !facts.itemTypes.includes('integer'));
  const items = itemTypes.length === 0 ? '' : ` of ${alternatives(itemTypes.map((type) => pluralNouns[type]))}`;
  const clauses: string[] = [];
  const minimum = minItems === 0 ? undefined : minItems;
  if (!nonEmpty) {
    if (minimum !== undefined && maxItems !== undefined) {
      clauses.push(
        minimum === maxItems ? `with exactly ${count(minimum, 'item')}` : `with ${minimum} to ${maxItems} items`,
      );
    } else if (minimum !== undefined) {
      clauses.push(`with at least ${count(minimum, 'item')}`);
    } else if (maxItems !== undefined) {
      clauses.push(`with at most ${count(maxItems, 'item')}`);
    }
  }
  if (facts.uniqueItems) clauses.push('with no duplicate items');
  const base = `${nonEmpty ? 'a non-empty array' : 'an array'}${items}`;
  return clauses.length === 0 ? base : `${base} ${clauses.join(', ')}`;
}

function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? '' : 's'}`;
}
