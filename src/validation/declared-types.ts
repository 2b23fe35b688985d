import { isSchemaObject } from './schema-resolver.js';

/**
 * The type names a schema's `type` keyword declares: one string, the strings
 * of an array, or none (absent or malformed).
 *
 * @example
 * declaredTypes(['string', 'null']); // ['string', 'null']
 */
export function declaredTypes(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

/**
 * Whether a JSON value is of a JSON Schema type name (`integer`: a whole
 * number; `object`: neither null nor an array).
 *
 * @example
 * hasJsonType(3, 'integer'); // true
 */
export function hasJsonType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isSchemaObject(value);
    default:
      return typeof value === type;
  }
}
