/**
 * Why a call's arguments were refused. Schema-layer codes concern types and
 * structure; semantic-layer codes concern values (enum, bounds, pattern,
 * format). Call-level codes (`invalid_json`, `not_an_object`, `too_deep`,
 * `unknown_tool`) concern the call as a whole.
 */
export type ValidationIssueCode =
  | 'invalid_json'
  | 'not_an_object'
  | 'too_deep'
  | 'unknown_tool'
  | 'missing_field'
  | 'wrong_type'
  | 'unknown_field'
  | 'no_matching_variant'
  | 'pattern_mismatch'
  | 'invalid_enum'
  | 'invalid_const'
  | 'invalid_format'
  | 'too_small'
  | 'too_large'
  | 'too_short'
  | 'too_long'
  | 'too_few_items'
  | 'too_many_items'
  | 'duplicate_items'
  | 'not_multiple'
  | 'invalid_value';

export type ValidationLayer = 'call' | 'schema' | 'semantic';

/**
 * One problem with one field of one call, with everything a model needs to
 * fix it in one round.
 */
export interface ValidationIssue {
  /** JSONPath of the offending value, e.g. `$.items[0].sku`; `$` for the whole call. */
  readonly path: string;
  readonly code: ValidationIssueCode;
  readonly layer: ValidationLayer;
  /** The model-facing sentence for this issue alone, in the requested locale. */
  readonly message: string;
}
