import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Locale } from '../tools/tool-types.js';
import { param, parentSchemaOf } from './ajv-error-fields.js';
import type { FieldWording, IssueProblem } from './issue-parts.js';
import {
  appendKey,
  arrayLevels,
  childValue,
  displayName,
  fieldLabel,
  hasIndexSegment,
  locate,
  walk,
} from './json-path.js';
import { pruneAjvErrors } from './prune-ajv-errors.js';
import type { SchemaGuide } from './schema-guide.js';
import { isSchemaObject } from './schema-resolver.js';
import type { ValidationIssue, ValidationIssueCode, ValidationLayer } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/** Turns the errors of one failed ajv run into issues. */
export type IssueBuilder = (errors: readonly ErrorObject[], args: unknown) => ValidationIssue[];

type Classification = { readonly code: ValidationIssueCode; readonly layer: ValidationLayer };

const schemaLayer = (code: ValidationIssueCode): Classification => ({ code, layer: 'schema' });
const semanticLayer = (code: ValidationIssueCode): Classification => ({ code, layer: 'semantic' });

/** Type and structure belong to the schema layer; values (enum, bounds, pattern, format, length) to the semantic one. */
const classifications: ReadonlyMap<string, Classification> = new Map([
  ['type', schemaLayer('wrong_type')],
  ['required', schemaLayer('missing_field')],
  ['dependentRequired', schemaLayer('missing_field')],
  ['dependencies', schemaLayer('missing_field')],
  ['additionalProperties', schemaLayer('unknown_field')],
  ['unevaluatedProperties', schemaLayer('unknown_field')],
  ['propertyNames', schemaLayer('unknown_field')],
  ['false schema', schemaLayer('unknown_field')],
  ['anyOf', schemaLayer('no_matching_variant')],
  ['oneOf', schemaLayer('no_matching_variant')],
  ['discriminator', schemaLayer('no_matching_variant')],
  ['items', schemaLayer('too_many_items')],
  ['additionalItems', schemaLayer('too_many_items')],
  ['unevaluatedItems', schemaLayer('too_many_items')],
  ['minProperties', schemaLayer('invalid_value')],
  ['maxProperties', schemaLayer('invalid_value')],
  ['enum', semanticLayer('invalid_enum')],
  ['const', semanticLayer('invalid_const')],
  ['minimum', semanticLayer('too_small')],
  ['exclusiveMinimum', semanticLayer('too_small')],
  ['formatMinimum', semanticLayer('too_small')],
  ['formatExclusiveMinimum', semanticLayer('too_small')],
  ['maximum', semanticLayer('too_large')],
  ['exclusiveMaximum', semanticLayer('too_large')],
  ['formatMaximum', semanticLayer('too_large')],
  ['formatExclusiveMaximum', semanticLayer('too_large')],
  ['multipleOf', semanticLayer('not_multiple')],
  ['pattern', semanticLayer('pattern_mismatch')],
  ['format', semanticLayer('invalid_format')],
  ['minLength', semanticLayer('too_short')],
  ['maxLength', semanticLayer('too_long')],
  ['minItems', semanticLayer('too_few_items')],
  ['maxItems', semanticLayer('too_many_items')],
  ['uniqueItems', semanticLayer('duplicate_items')],
]);
const otherValue = semanticLayer('invalid_value');

const mismatch: IssueProblem = { kind: 'mismatch' };
const missing: IssueProblem = { kind: 'missing' };
const severalVariants: IssueProblem = { kind: 'several_variants' };
const fieldName: IssueProblem = { kind: 'field_name' };
/** Cache key for "no schema known" (a field without its own schema). */
const noSchema = Object.freeze({});
/** Below this many issues, a repeated path is found by scanning them rather than with a set. */
const linearScanLimit = 16;
/** Sites kept per tool before the cache starts over (arguments with endless distinct paths must not grow it). */
const maxSites = 2048;

/**
 * One place an error can occur (a keyword of a schema at a path of the
 * arguments), with the part of its message that does not depend on the
 * value sent. Most refused calls hit the same few sites again and again.
 */
interface Site {
  readonly instancePath: string;
  readonly name: string | undefined;
  readonly parentSchema: unknown;
  readonly keyword: string;
  readonly problem: IssueProblem;
  readonly arrays: number;
  /** Whether the instance path has segments that may be array indexes (then `arrays` must match too). */
  readonly indexed: boolean;
  readonly path: string;
  readonly rank: number;
  readonly code: ValidationIssueCode;
  readonly layer: ValidationLayer;
  readonly start: string;
}

/**
 * Builds the issue mapper of one tool: ajv's errors become issues a model
 * can act on, with the branch errors of an `anyOf`/`oneOf` collapsed into
 * one `no_matching_variant`, nothing more reported for a value of the wrong
 * type, one issue per path, in the order of the schema's fields. What does
 * not depend on the value sent is worded once per site and kept.
 *
 * @example
 * const toIssues = createIssueBuilder({ guide: schemaGuide(schema), toolName: 'apply_refund', locale: 'en' });
 * if (!validate(args)) return toIssues(validate.errors ?? [], args);
 */
export function createIssueBuilder({
  guide,
  toolName,
  locale,
}: {
  guide: SchemaGuide;
  toolName: string;
  locale: Locale;
}): IssueBuilder {
  const texts = validationTexts(locale);
  const shownToolName = displayName(toolName);
  const sentNothing = texts.received({ kind: 'nothing' });
  const wordings = new WeakMap<object, FieldWording>();
  const sites = new Map<string, Site[]>();
  let siteCount = 0;

  const requiredWith = new Map<string, IssueProblem>();
  /** One problem object per property, so that sites can compare problems by identity. */
  const missingWith = (property: string): IssueProblem => {
    let problem = requiredWith.get(property);
    if (problem === undefined) {
      problem = { kind: 'missing_with', property };
      requiredWith.set(property, problem);
    }
    return problem;
  };

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
    arrays: number,
  ): Site => {
    const { code, layer } = classifications.get(error.keyword) ?? otherValue;
    const located = locate(args, error.instancePath);
    const path = name === undefined ? located.path : appendKey(located.path, name);
    let wording: FieldWording | undefined;
    let worded = problem;
    switch (error.keyword) {
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
        const containerPath = locate(
          args,
          error.instancePath.slice(0, Math.max(error.instancePath.lastIndexOf('/'), 0)),
        );
        const holder = /^(.*)\/properties\/[^/]+\/false schema$/.exec(error.schemaPath)?.[1];
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
    const { instancePath, keyword } = error;
    const indexed = hasIndexSegment(instancePath);
    return { instancePath, name, parentSchema, keyword, problem, arrays, indexed, path, rank, code, layer, start };
  };

  /** The cached site of an error, or a new one; the data is walked only when a path has array indexes. */
  const siteFor = (
    error: ErrorObject,
    args: unknown,
    parentSchema: unknown,
    name: string | undefined,
    problem: IssueProblem,
  ): Site => {
    const { instancePath } = error;
    // ajv's schema paths are constants of its generated code, so they make cheap keys.
    const candidates = problem.kind === 'duplicates' ? undefined : sites.get(error.schemaPath);
    let arrays: number | undefined;
    if (candidates !== undefined) {
      for (const site of candidates) {
        if (
          site.instancePath !== instancePath ||
          site.name !== name ||
          site.parentSchema !== parentSchema ||
          site.keyword !== error.keyword ||
          site.problem !== problem
        ) {
          continue;
        }
        if (!site.indexed) return site;
        arrays ??= arrayLevels(args, instancePath);
        if (site.arrays === arrays) return site;
      }
    }
    arrays ??= arrayLevels(args, instancePath);
    const site = createSite(error, args, parentSchema, name, problem, arrays);
    if (arrays !== -1 && problem.kind !== 'duplicates') {
      if (siteCount >= maxSites) {
        sites.clear();
        siteCount = 0;
      }
      const list = sites.get(error.schemaPath);
      if (list === undefined) sites.set(error.schemaPath, [site]);
      else list.push(site);
      siteCount += 1;
    }
    return site;
  };

  return (errors, args) => {
    const dropped = pruneAjvErrors({ errors, guide });
    const issues: ValidationIssue[] = [];
    const ranks: number[] = [];
    let seen: Set<string> | undefined;
    for (let index = 0; index < errors.length; index += 1) {
      const error = errors[index];
      if (error === undefined || dropped[index] === true) continue;
      const parentSchema = parentSchemaOf(error, guide);
      // ajv's verbose errors carry the value; with another ajv instance, look it up.
      const value = error.data !== undefined ? error.data : walk(args, error.instancePath).value;
      let name: string | undefined;
      let problem = mismatch;
      let sent: string;
      switch (error.keyword) {
        case 'required':
        case 'dependentRequired':
        case 'dependencies': {
          name = String(param(error, 'missingProperty'));
          const property = param(error, 'property');
          problem = error.keyword !== 'required' && typeof property === 'string' ? missingWith(property) : missing;
          sent = sentNothing;
          break;
        }
        case 'additionalProperties':
        case 'unevaluatedProperties':
          name = String(
            param(error, error.keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty'),
          );
          sent = texts.sentValue(childValue(value, name));
          break;
        case 'propertyNames':
          name = String(param(error, 'propertyName'));
          problem = fieldName;
          sent = '';
          break;
        default:
          problem = problemOf(error);
          sent = texts.sentValue(value);
      }
      const site = siteFor(error, args, parentSchema, name, problem);
      if (issues.length >= linearScanLimit) seen ??= new Set(issues.map((issue) => issue.path));
      if (seen === undefined ? hasPath(issues, site.path) : seen.has(site.path)) continue;
      seen?.add(site.path);
      issues.push({
        path: site.path,
        code: site.code,
        layer: site.layer,
        message: site.start + sent,
      });
      ranks.push(site.rank);
    }
    return inSchemaOrder(issues, ranks);
  };
}

function hasPath(issues: readonly ValidationIssue[], path: string): boolean {
  for (const issue of issues) if (issue.path === path) return true;
  return false;
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

function problemOf(error: ErrorObject): IssueProblem {
  if (error.keyword === 'oneOf' && Array.isArray(param(error, 'passingSchemas'))) return severalVariants;
  if (error.keyword === 'uniqueItems') {
    const first = Number(param(error, 'j'));
    const second = Number(param(error, 'i'));
    return { kind: 'duplicates', first: Math.min(first, second), second: Math.max(first, second) };
  }
  return mismatch;
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

/** Sorts issues by rank in place (stable; calls have few issues, so an insertion sort). */
function inSchemaOrder(issues: ValidationIssue[], ranks: number[]): ValidationIssue[] {
  for (let index = 1; index < issues.length; index += 1) {
    const issue = issues[index];
    const rank = ranks[index];
    if (issue === undefined || rank === undefined) continue;
    let position = index - 1;
    for (;;) {
      const before = issues[position];
      const beforeRank = ranks[position];
      if (before === undefined || beforeRank === undefined || beforeRank <= rank) break;
      issues[position + 1] = before;
      ranks[position + 1] = beforeRank;
      position -= 1;
    }
    issues[position + 1] = issue;
    ranks[position + 1] = rank;
  }
  return issues;
}
