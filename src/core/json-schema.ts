/** A JSON Schema (2020-12) object. arbiter sends it to the model and enforces it. */
export type JsonSchema = { readonly [keyword: string]: unknown };
