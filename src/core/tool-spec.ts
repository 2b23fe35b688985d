import type { JsonSchema } from './json-schema.js';

/** The function-calling definition sent to a model. */
export interface ToolSpec {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}
