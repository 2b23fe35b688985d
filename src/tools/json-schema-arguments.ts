/**
 * The TypeScript type of the values a JSON Schema written `as const`
 * accepts: `type` (one or several), `properties` with `required`,
 * `additionalProperties` given as a schema, `items`, `enum`, `const`,
 * `anyOf`/`oneOf` (a union) and `allOf` (an intersection). What it cannot
 * read (`$ref`, `not`, `if`) is `unknown`. Properties neither in `required`
 * nor with a `default` (filled in before `execute`) are optional. An object schema does not type the properties it does not name,
 * so a misspelled argument name fails to compile.
 *
 * @example
 * const schema = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } as const;
 * type Args = JsonSchemaArguments<typeof schema>; // { order_id: string }
 */
export type JsonSchemaArguments<Schema> = ValueOf<Schema, []>;

/** Nesting deeper than this reads as `unknown`, so a pathological schema cannot stall the compiler. */
type Deeper<Depth extends readonly unknown[]> = [...Depth, unknown];

type ValueOf<Schema, Depth extends readonly unknown[]> = Depth['length'] extends 16
  ? unknown
  : Schema extends { readonly const: infer Value }
    ? Value
    : Schema extends { readonly enum: readonly (infer Member)[] }
      ? Member
      : Schema extends { readonly anyOf: infer Members }
        ? UnionOf<Members, Deeper<Depth>>
        : Schema extends { readonly oneOf: infer Members }
          ? UnionOf<Members, Deeper<Depth>>
          : Schema extends { readonly allOf: infer Members }
            ? IntersectionOf<Members, Deeper<Depth>>
            : Schema extends { readonly type: infer Type }
              ? TypeValue<Schema, Type extends readonly (infer Each)[] ? Each : Type, Depth>
              : unknown;

type TypeValue<Schema, Type, Depth extends readonly unknown[]> = Type extends 'string'
  ? string
  : Type extends 'number' | 'integer'
    ? number
    : Type extends 'boolean'
      ? boolean
      : Type extends 'null'
        ? null
        : Type extends 'array'
          ? Schema extends { readonly items: infer Items }
            ? ValueOf<Items, Deeper<Depth>>[]
            : unknown[]
          : Type extends 'object'
            ? ObjectValue<Schema, Deeper<Depth>>
            : unknown;

type UnionOf<Members, Depth extends readonly unknown[]> = Members extends readonly (infer Member)[]
  ? Member extends unknown
    ? ValueOf<Member, Depth>
    : never
  : unknown;

type IntersectionOf<Members, Depth extends readonly unknown[]> = Members extends readonly [infer First, ...infer Rest]
  ? ValueOf<First, Depth> & IntersectionOf<Rest, Depth>
  : unknown;

/** Required, or filled in with its `default` before `execute`: present either way. */
type RequiredNames<Schema> =
  | (Schema extends { readonly required: readonly (infer Name)[] } ? Name : never)
  | DefaultedNames<Schema>;

type DefaultedNames<Schema> = Schema extends { readonly properties: infer Properties }
  ? {
      [Name in keyof Properties]: Properties[Name] extends { readonly default: unknown } ? Name : never;
    }[keyof Properties]
  : never;

type ObjectValue<Schema, Depth extends readonly unknown[]> = Schema extends { readonly properties: infer Properties }
  ? Flatten<
      {
        -readonly [Name in keyof Properties as Name extends RequiredNames<Schema> ? Name : never]: ValueOf<
          Properties[Name],
          Depth
        >;
      } & {
        -readonly [Name in keyof Properties as Name extends RequiredNames<Schema> ? never : Name]?: ValueOf<
          Properties[Name],
          Depth
        >;
      } & ExtraProperties<Schema, Depth>
    >
  : Schema extends { readonly additionalProperties: false }
    ? Record<string, never>
    : ExtraProperties<Schema, Depth> extends infer Extra
      ? keyof Extra extends never
        ? Record<string, unknown>
        : Extra
      : never;

/** `additionalProperties` given as a schema types the other keys; `true`, `false` or absent adds nothing. */
type ExtraProperties<Schema, Depth extends readonly unknown[]> = Schema extends {
  readonly additionalProperties: infer Extra;
}
  ? Extra extends boolean
    ? unknown
    : { [name: string]: ValueOf<Extra, Depth> }
  : unknown;

type Flatten<Value> = { [Key in keyof Value]: Value[Key] } & {};
