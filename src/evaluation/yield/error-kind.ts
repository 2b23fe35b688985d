import type { ValidationIssue } from '../../validation/validation-issue.js';

/** The error kinds the correction-yield tables are cut by. */
export const errorKinds = [
  'wrong_type',
  'missing_field',
  'enum',
  'pattern',
  'format',
  'nested_path',
  'unknown_tool',
  'other',
] as const;

export type ErrorKind = (typeof errorKinds)[number];

/**
 * The kind of a refused call, read from arbiter's issues (not from how the
 * call was made): an unknown tool; a problem below the top level of the
 * arguments (`$.items[0].sku`) is `nested_path`; otherwise the first issue's
 * code (`invalid_enum` → `enum`, `pattern_mismatch` → `pattern`,
 * `invalid_format` → `format`); bounds, lengths, unknown fields and broken
 * JSON are `other`.
 *
 * @example
 * errorKindOf([{ path: '$.order_id', code: 'pattern_mismatch', layer: 'semantic', message: '…' }]); // 'pattern'
 */
export function errorKindOf(issues: readonly Pick<ValidationIssue, 'path' | 'code'>[]): ErrorKind {
  if (issues.some((issue) => issue.code === 'unknown_tool')) return 'unknown_tool';
  if (issues.some((issue) => depth(issue.path) >= 2)) return 'nested_path';
  switch (issues[0]?.code) {
    case 'wrong_type':
      return 'wrong_type';
    case 'missing_field':
      return 'missing_field';
    case 'invalid_enum':
    case 'invalid_const':
      return 'enum';
    case 'pattern_mismatch':
      return 'pattern';
    case 'invalid_format':
      return 'format';
    default:
      return 'other';
  }
}

function depth(path: string): number {
  return (path.replace(/^\$/, '').match(/\.[^.[\]]+|\[\d+\]/g) ?? []).length;
}
