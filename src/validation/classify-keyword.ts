import type { ValidationIssueCode, ValidationLayer } from './validation-issue.js';

/** The code and layer of the issues one ajv keyword produces. */
export interface KeywordClassification {
  readonly code: ValidationIssueCode;
  readonly layer: ValidationLayer;
}

const schemaLayer = (code: ValidationIssueCode): KeywordClassification => ({ code, layer: 'schema' });
const semanticLayer = (code: ValidationIssueCode): KeywordClassification => ({ code, layer: 'semantic' });

/** Type and structure belong to the schema layer; values (enum, bounds, pattern, format, length) to the semantic one. */
const classifications: ReadonlyMap<string, KeywordClassification> = new Map([
  ['type', schemaLayer('wrong_type')],
  ['required', schemaLayer('missing_field')],
  ['dependentRequired', schemaLayer('missing_field')],
  ['dependencies', schemaLayer('missing_field')],
  ['additionalProperties', schemaLayer('unknown_field')],
  ['unevaluatedProperties', schemaLayer('unknown_field')],
  ['propertyNames', schemaLayer('unknown_field')],
  ['false schema', schemaLayer('unknown_field')],
  ['anyOf', schemaLayer('no_matching_variant')],
  ['oneOf', schemaLayer('no_matching_variant')],
  ['discriminator', schemaLayer('no_matching_variant')],
  ['items', schemaLayer('too_many_items')],
  ['additionalItems', schemaLayer('too_many_items')],
  ['unevaluatedItems', schemaLayer('too_many_items')],
  ['minProperties', schemaLayer('invalid_value')],
  ['maxProperties', schemaLayer('invalid_value')],
  ['enum', semanticLayer('invalid_enum')],
  ['const', semanticLayer('invalid_const')],
  ['minimum', semanticLayer('too_small')],
  ['exclusiveMinimum', semanticLayer('too_small')],
  ['formatMinimum', semanticLayer('too_small')],
  ['formatExclusiveMinimum', semanticLayer('too_small')],
  ['maximum', semanticLayer('too_large')],
  ['exclusiveMaximum', semanticLayer('too_large')],
  ['formatMaximum', semanticLayer('too_large')],
  ['formatExclusiveMaximum', semanticLayer('too_large')],
  ['multipleOf', semanticLayer('not_multiple')],
  ['pattern', semanticLayer('pattern_mismatch')],
  ['format', semanticLayer('invalid_format')],
  ['minLength', semanticLayer('too_short')],
  ['maxLength', semanticLayer('too_long')],
  ['minItems', semanticLayer('too_few_items')],
  ['maxItems', semanticLayer('too_many_items')],
  ['uniqueItems', semanticLayer('duplicate_items')],
]);
const otherValue = semanticLayer('invalid_value');

/**
 * The issue code and layer of a failed ajv keyword; `invalid_value` in the
 * semantic layer for keywords without one of their own (custom keywords).
 *
 * @example
 * classifyKeyword('minimum'); // { code: 'too_small', layer: 'semantic' }
 */
export function classifyKeyword(keyword: string): KeywordClassification {
  return classifications.get(keyword) ?? otherValue;
}
