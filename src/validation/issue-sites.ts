import type { ErrorObject } from 'ajv/dist/2020.js';
import { param } from './ajv-error-fields.js';
import { classifyKeyword } from './classify-keyword.js';
import type { FieldWording, IssueProblem, ValidationTexts } from './issue-parts.js';
import { appendKey, arrayLevels, displayName, fieldLabel, locate, segmentsToLastIndex } from './json-path.js';
import type { SchemaGuide } from './schema-guide.js';
import { isSchemaObject } from './schema-resolver.js';
import type { ValidationIssueCode, ValidationLayer } from './validation-issue.js';

/**
 * One place an error can occur (a keyword of a schema at a path of the
 * arguments), with everything of its issue that does not depend on the
 * value sent. Most refused calls hit the same few sites again and again.
 */
export interface IssueSite {
  /** The issue's JSONPath, e.g. `$.items[0].sku`. */
  readonly path: string;
  readonly code: ValidationIssueCode;
  readonly layer: ValidationLayer;
  /** The issue line up to what was sent, laid out flat. */
  readonly start: string;
  /** Position among the schema's top-level fields, for listing issues in schema order. */
  readonly rank: number;
  readonly instancePath: string;
  readonly name: string | undefined;
  readonly parentSchema: unknown;
  readonly keyword: string;
  readonly problem: IssueProblem;
  /** The decoded segments of `instancePath` up to its last one that may index an array; none when no segment may. */
  readonly segments: readonly string[] | undefined;
  /** `arrayLevels` of the arguments the site was worded for. */
  readonly arrays: number;
}

/** Finds the site of an ajv error, wording it the first time it is seen. */
export type SiteLookup = (
  error: ErrorObject,
  args: unknown,
  parentSchema: unknown,
  name: string | undefined,
  problem: IssueProblem,
) => IssueSite;

/** Cache key for "no schema known" (a field without its own schema). */
const noSchema = Object.freeze({});
/** Sites kept per tool before the cache starts over (arguments with endless distinct paths must not grow it). */
const maxSites = 2048;
const falseSchemaHolder = /^(.*)\/properties\/[^/]+\/false schema$/;

/**
 * The site cache of one tool and locale. Sites are keyed by ajv's
 * `schemaPath` (a constant of its generated code, so a cheap key), then told
 * apart by instance path; a path with array indexes is checked against the
 * arguments along its stored segments, without parsing the pointer again.
 *
 * @example
 * const siteFor = createIssueSites({ guide, toolName: 'apply_refund', texts: englishTexts });
 * const site = siteFor(error, args, error.parentSchema, undefined, { kind: 'mismatch' });
 */
export function createIssueSites({
  guide,
  toolName,
  texts,
}: {
  guide: SchemaGuide;
  toolName: string;
  texts: ValidationTexts;
}): SiteLookup {
  const shownToolName = displayName(toolName);
  const wordings = new WeakMap<object, FieldWording>();
  const sites = new Map<string, IssueSite[]>();
  let siteCount = 0;

  const wordingOf = (schema: unknown): FieldWording => {
    const key = isSchemaObject(schema) ? schema : noSchema;
    let wording = wordings.get(key);
    if (wording === undefined) {
      wording = texts.fieldWording(guide.field(schema));
      wordings.set(key, wording);
    }
    return wording;
  };

  const unknownField = (
    containerPath: string,
    fields: { readonly names: readonly string[]; readonly patterns: readonly string[] } | undefined,
  ): IssueProblem => ({
    kind: 'unknown_field',
    container: containerPath === '$' ? undefined : fieldLabel({ path: containerPath, toolName }),
    allowed: fields?.names,
    patterns: fields?.patterns ?? [],
  });

  /** Words a site the first time it is seen: its path, and its message up to what was sent. */
  const createSite = (
    error: ErrorObject,
    args: unknown,
    parentSchema: unknown,
    name: string | undefined,
    problem: IssueProblem,
  ): IssueSite => {
    const { instancePath, keyword } = error;
    const { code, layer } = classifyKeyword(keyword);
    const located = locate(args, instancePath);
    const path = name === undefined ? located.path : appendKey(located.path, name);
    let wording: FieldWording | undefined;
    let worded = problem;
    switch (keyword) {
      case 'required':
      case 'dependentRequired':
      case 'dependencies':
        wording = wordingOf(guide.propertySchema(parentSchema, name ?? ''));
        break;
      case 'additionalProperties':
      case 'unevaluatedProperties':
        worded = unknownField(located.path, guide.objectFields(parentSchema));
        break;
      case 'false schema': {
        const containerPath = locate(args, instancePath.slice(0, Math.max(instancePath.lastIndexOf('/'), 0)));
        const holder = falseSchemaHolder.exec(error.schemaPath)?.[1];
        worded = unknownField(
          containerPath.path,
          holder === undefined ? undefined : guide.objectFields(guide.resolver.atPointer(holder)),
        );
        break;
      }
      case 'propertyNames':
        wording = wordingOf(guide.resolver.flatten(parentSchema)['propertyNames']);
        break;
      default:
        wording = wordingOf(guide.fieldSchemaOf(parentSchema));
    }
    const field = fieldLabel({ path, toolName });
    const start = flat(texts.issueStart({ field, toolName: shownToolName, problem: worded, wording }));
    const rank = rankOf(error, guide.argumentOrder);
    const segments = segmentsToLastIndex(instancePath);
    const arrays = segments === undefined ? 0 : arrayLevels(args, segments);
    return { path, code, layer, start, rank, instancePath, name, parentSchema, keyword, problem, segments, arrays };
  };

  const remember = (schemaPath: string, site: IssueSite): void => {
    if (siteCount >= maxSites) {
      sites.clear();
      siteCount = 0;
    }
    const list = sites.get(schemaPath);
    if (list === undefined) sites.set(schemaPath, [site]);
    else list.push(site);
    siteCount += 1;
  };

  return (error, args, parentSchema, name, problem) => {
    // A duplicates problem names item positions in its text, so its site is worded afresh every time.
    if (problem.kind === 'duplicates') return createSite(error, args, parentSchema, name, problem);
    const candidates = sites.get(error.schemaPath);
    if (candidates !== undefined) {
      const { instancePath, keyword } = error;
      let arrays: number | undefined;
      for (const site of candidates) {
        if (
          site.instancePath !== instancePath ||
          site.name !== name ||
          site.parentSchema !== parentSchema ||
          site.keyword !== keyword ||
          site.problem !== problem
        ) {
          continue;
        }
        if (site.segments === undefined) return site;
        // Same pointer, so the same segments: whether `/0` indexes an array or names a field depends on the data.
        arrays ??= arrayLevels(args, site.segments);
        if (site.arrays === arrays) return site;
      }
    }
    const site = createSite(error, args, parentSchema, name, problem);
    if (site.arrays !== -1) remember(error.schemaPath, site);
    return site;
  };
}

/**
 * The same text laid out as one flat string. A text built from pieces is a
 * rope in V8; a cached rope would be walked again every time a message
 * containing it is read.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/** Issues are listed in the order of the schema's top-level fields (ajv puts missing fields first). */
function rankOf(error: ErrorObject, order: ReadonlyMap<string, number>): number {
  let key: unknown;
  const pointer = error.instancePath;
  if (pointer !== '') {
    const end = pointer.indexOf('/', 1);
    const segment = end === -1 ? pointer.slice(1) : pointer.slice(1, end);
    key = segment.includes('~') ? segment.replaceAll('~1', '/').replaceAll('~0', '~') : segment;
  } else {
    key =
      param(error, 'missingProperty') ??
      param(error, 'additionalProperty') ??
      param(error, 'unevaluatedProperty') ??
      param(error, 'propertyName');
  }
  if (typeof key !== 'string') return -1;
  return order.get(key) ?? order.size;
}
