/**
 * The Standard JSON Schema interface (`@standard-schema/spec` 1.1, copied
 * as its authors invite, so arbiter needs no package for it): what zod 4,
 * ArkType 2 and valibot (through `toStandardJsonSchema` of
 * `@valibot/to-json-schema`) expose under `~standard`. arbiter reads the
 * input type and asks for the input JSON Schema; it never calls the
 * library's own validation.
 *
 * @example
 * const orderQuery: StandardJsonSchema<{ order_id: string }> = z.object({ order_id: z.string() });
 * orderQuery['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
 */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': StandardJsonSchemaProps<Input, Output>;
}

/** The `~standard` properties of a Standard JSON Schema. */
export interface StandardJsonSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  /** The library, e.g. `zod`, `valibot`, `arktype`. */
  readonly vendor: string;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  readonly jsonSchema: {
    /** The JSON Schema of what the schema accepts. May throw when it cannot be said in JSON Schema. */
    readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
    /** The JSON Schema of what the schema produces (after its transforms). May throw likewise. */
    readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
  };
}

/** What a Standard JSON Schema converter is asked for. */
export interface StandardJsonSchemaOptions {
  readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | ({} & string);
  /** Options of the vendor's own converter. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** The type a Standard Schema accepts: what arbiter validates, the model may leave a defaulted field out of. */
export type StandardJsonSchemaInput<Schema extends StandardJsonSchema> = NonNullable<
  Schema['~standard']['types']
>['input'];

/**
 * The type a Standard Schema produces: what `execute` receives, its defaults
 * filled in and the keys its library drops dropped (transforms, which would
 * make it differ otherwise, are refused by `defineTool`).
 */
export type StandardJsonSchemaOutput<Schema extends StandardJsonSchema> = NonNullable<
  Schema['~standard']['types']
>['output'];
