/**
 * The keyword a library's converter is made to leave on a node it cannot
 * say in JSON Schema; its value is the index of the report. Never sent:
 * a converted schema holding one is refused.
 */
export const unsaidMarker = '~arbiter.unsaid';

/** Called with what a node says that JSON Schema cannot; returns the marker's value for that node. */
export type ReportUnsaid = (what: string) => number;

/**
 * The options that make a known library's JSON Schema converter report
 * what it would otherwise drop without a word (zod's refinements, ArkType's
 * narrows, valibot's checks and transforms) by leaving a marker on the
 * node, so the tool's definition can name the field. Each library is
 * recognised by its Standard Schema `vendor` and read only through the
 * objects it hands its own converter's hooks: arbiter imports none of
 * them. Undefined for another library, whose converter is then trusted to
 * throw (and whose transforms still show as an output that differs from
 * the input).
 *
 * @example
 * schema['~standard'].jsonSchema.input({ target: 'draft-2020-12', libraryOptions: strictConversionOptions({ vendor: 'zod', report }) });
 */
export function strictConversionOptions({
  vendor,
  report,
  side = 'input',
}: {
  vendor: string;
  report: ReportUnsaid;
  /** Which JSON Schema is asked for: what the schema accepts, or what it produces. Default `input`. */
  side?: 'input' | 'output';
}): Record<string, unknown> | undefined {
  if (vendor === 'zod') return zodOptions(report);
  if (vendor === 'arktype') return arkTypeOptions(report);
  if (vendor === 'valibot') return valibotOptions(report, side);
  return undefined;
}

/**
 * The formats whose pattern zod writes beside `format` on its own (`z.email()`, `z.uuid()`, …): ajv enforces
 * these formats itself, so the pattern nobody wrote is left out (the model is told the format, not zod's regex).
 */
const formatsAjvChecks = new Set([
  'email',
  'uuid',
  'uri',
  'url',
  'date-time',
  'date',
  'time',
  'duration',
  'ipv4',
  'ipv6',
  'hostname',
]);

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** zod 4: `override` sees every node with its definition (`_zod.def`) and JSON Schema. */
function zodOptions(report: ReportUnsaid): Record<string, unknown> {
  const mark = (jsonSchema: Node, what: string): void => {
    if (jsonSchema[unsaidMarker] === undefined) jsonSchema[unsaidMarker] = report(what);
  };
  return {
    unrepresentable: 'any',
    override: (context: unknown) => {
      if (!isNode(context) || !isNode(context['jsonSchema']) || !isNode(context['zodSchema'])) return;
      const jsonSchema = context['jsonSchema'];
      const internals = context['zodSchema']['_zod'];
      const definition = isNode(internals) && isNode(internals['def']) ? internals['def'] : {};
      const type = definition['type'];
      const checks = Array.isArray(definition['checks']) ? (definition['checks'] as unknown[]) : [];
      const checkKinds = checks.map((check) =>
        isNode(check) && isNode(check['_zod']) && isNode(check['_zod']['def'])
          ? check['_zod']['def']['check']
          : undefined,
      );
      leaveOutImplicit(jsonSchema, definition);
      if (checkKinds.includes('custom')) mark(jsonSchema, 'a refinement (refine, superRefine or check)');
      else if (checkKinds.includes('overwrite')) mark(jsonSchema, 'a transform (trim, toLowerCase, overwrite)');
      else if (type === 'pipe' || type === 'transform') {
        mark(jsonSchema, 'a transform or pipe (transform, pipe, preprocess, a codec)');
      } else if (definition['coerce'] === true) mark(jsonSchema, 'a coercion (z.coerce)');
      else if (Object.keys(jsonSchema).length === 0 && type !== 'any' && type !== 'unknown') {
        mark(jsonSchema, `a ${String(type)} schema, whose values JSON cannot carry`);
      }
    },
  };
}

/**
 * What zod writes that nobody wrote: the bounds of a safe integer on `z.int()` / `.int()` (±9007199254740991,
 * the limits of JSON numbers that stay exact anyway) and the pattern of a format ajv checks by name.
 */
function leaveOutImplicit(jsonSchema: Node, definition: Node): void {
  if (jsonSchema['type'] === 'integer') {
    if (jsonSchema['minimum'] === Number.MIN_SAFE_INTEGER) delete jsonSchema['minimum'];
    if (jsonSchema['maximum'] === Number.MAX_SAFE_INTEGER) delete jsonSchema['maximum'];
  }
  const format = definition['format'];
  if (typeof format === 'string' && formatsAjvChecks.has(format) && jsonSchema['format'] === format) {
    delete jsonSchema['pattern'];
  }
}

const arkTypeCodes: Readonly<Record<string, string>> = {
  predicate: 'a narrow (a custom predicate)',
  morph: 'a morph (pipe or transform)',
  date: 'a Date, which JSON cannot carry',
  proto: 'an instance of a class, which JSON cannot carry',
  domain: 'a bigint, symbol, function or undefined, which JSON cannot carry',
  unit: 'a literal JSON cannot carry',
  defaultValue: 'a default JSON cannot carry',
};

/** ArkType 2: every `fallback` is called where its converter would otherwise keep only what it can say. */
function arkTypeOptions(report: ReportUnsaid): Record<string, unknown> {
  return {
    fallback: (context: unknown) => {
      const node = isNode(context) ? context : {};
      const base = isNode(node['base']) ? node['base'] : {};
      const code = String(node['code']);
      return { ...base, [unsaidMarker]: report(arkTypeCodes[code] ?? `what ArkType calls "${code}"`) };
    },
  };
}

/**
 * valibot (`@valibot/to-json-schema`): errors reported on schemas and pipe actions instead of thrown. What it
 * produces says that `v.object` drops unknown keys (`additionalProperties: false` on the output side, as zod's
 * does), which its converter leaves unsaid: `v.looseObject` keeps them and `v.strictObject` refuses them.
 */
function valibotOptions(report: ReportUnsaid, side: 'input' | 'output'): Record<string, unknown> {
  const override = (context: unknown): Node | undefined => {
    if (!isNode(context)) return undefined;
    const base = isNode(context['jsonSchema']) ? context['jsonSchema'] : {};
    if (Array.isArray(context['errors'])) {
      const [first] = context['errors'] as unknown[];
      return { ...base, [unsaidMarker]: report(String(first).replace(/\.$/, '')) };
    }
    const schema = context['valibotSchema'];
    if (
      side === 'output' &&
      isNode(schema) &&
      schema['type'] === 'object' &&
      base['additionalProperties'] === undefined
    ) {
      return { ...base, additionalProperties: false };
    }
    return undefined;
  };
  return { errorMode: 'ignore', overrideSchema: override, overrideAction: override };
}
