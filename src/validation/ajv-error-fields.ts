import type { ErrorObject } from 'ajv/dist/2020.js';
import type { SchemaGuide } from './schema-guide.js';

/**
 * The schema object holding the keyword that failed: ajv's `parentSchema`
 * when it is verbose, else found from the error's `schemaPath`.
 *
 * @example
 * parentSchemaOf(error, guide); // { type: 'integer', minimum: 1, … }
 */
export function parentSchemaOf(error: ErrorObject, guide: SchemaGuide): unknown {
  if (error.parentSchema !== undefined) return error.parentSchema;
  return guide.resolver.atPointer(error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')));
}

/**
 * One of an ajv error's `params`, as `unknown`.
 *
 * @example
 * param(error, 'missingProperty'); // 'reason'
 */
export function param(error: ErrorObject, name: string): unknown {
  const params: Record<string, unknown> = error.params;
  return params[name];
}
