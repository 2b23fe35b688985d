import { convertStandardSchema, isStandardSchema } from './convert-standard-schema.js';
import type {
  BoundParameters,
  ToolArguments,
  ToolDefinition,
  ToolParameters,
  TypedToolDefinition,
} from './tool-types.js';

/**
 * Declares a tool. `parameters` is written once, and the type of the
 * arguments `execute` (and `approval`, `idempotencyKey`, `reconcile`,
 * `undo`) receives is read from it, bound parameters included:
 *
 * - a JSON Schema written inline or `as const`: sent and enforced as it is;
 * - a Standard Schema that gives its JSON Schema (zod 4, ArkType 2, valibot
 *   wrapped with `toStandardJsonSchema` of `@valibot/to-json-schema`):
 *   converted here, once, into the JSON Schema the model is sent and
 *   arbiter's validator enforces, so validation messages are arbiter's own,
 *   complete and in every locale. A schema that says what JSON Schema
 *   cannot (a refinement, a transform, a coercion, a custom check) is
 *   refused here with a `ToolDefinitionError` naming the tool and the field.
 *
 * `execute` gets what the library itself would hand over, typed as its
 * output: defaults filled in, and unknown keys the model sent dropped where
 * the library drops them (zod's `z.object`, valibot's `v.object`), kept
 * where it keeps them (`.loose()`, `v.looseObject`, ArkType's objects) and
 * refused where it refuses them (`.strict()`, `v.strictObject`, ArkType's
 * `'+': 'reject'`). A JSON Schema's `default`s are filled in likewise.
 *
 * The result type is read from `execute`: write `execute` before `undo`
 * and `reconcile` for the result they receive to be typed as it.
 *
 * The older form `defineTool<Args>({ … })`, with the argument type written
 * beside the schema, still compiles; nothing checks that the two agree.
 * The rest of the definition is checked when it is registered (see
 * `ToolRegistry`), so a broken schema fails at start-up, not mid-run.
 *
 * @example
 * const queryOrder = defineTool({
 *   name: 'query_order',
 *   description: 'Look up one order by number. Not for shipments: use track_shipment.',
 *   parameters: z.object({
 *     order_id: z.string().regex(/^SO\d{8}$/).describe('Order number, SO + 8 digits').meta({ examples: ['SO20260901'] }),
 *   }),
 *   sideEffect: 'read',
 *   execute: ({ order_id }) => orders.find(order_id), // order_id: string
 * });
 */
export function defineTool<
  const Parameters extends ToolParameters,
  const Bound extends BoundParameters,
  Result = unknown,
>(definition: TypedToolDefinition<Parameters, Bound, Result>): ToolDefinition<ToolArguments<Parameters, Bound>, Result>;
export function defineTool<Args = never, Result = unknown>(
  definition: ToolDefinition<Args, Result>,
): ToolDefinition<Args, Result>;
export function defineTool(definition: ToolDefinition | TypedToolDefinition<ToolParameters, BoundParameters, unknown>) {
  if (!isStandardSchema(definition.parameters)) return definition;
  return {
    ...definition,
    parameters: convertStandardSchema({ toolName: definition.name, schema: definition.parameters }),
  };
}
