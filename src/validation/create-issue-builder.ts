import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Locale } from '../tools/tool-types.js';
import type { FieldWording, IssueProblem, Received } from './issue-parts.js';
import { appendKey, childValue, displayName, fieldLabel, locate, walk } from './json-path.js';
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

/** Keywords whose failure is reported once, in place of the errors of their branches (value: the branches' keyword). */
const collapsingKeywords: ReadonlyMap<string, string> = new Map([
  ['anyOf', 'anyOf'],
  ['oneOf', 'oneOf'],
  ['discriminator', 'oneOf'],
  ['contains', 'contains'],
  ['propertyNames', 'propertyNames'],
]);

const mismatch: IssueProblem = { kind: 'mismatch' };
const missing: IssueProblem = { kind: 'missing' };
const severalVariants: IssueProblem = { kind: 'several_variants' };
const fieldName: IssueProblem = { kind: 'field_name' };
const nothing: Received = { kind: 'nothing' };
const omitted: Received = { kind: 'omit' };
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
  readonly parentSchema: unknown;
  readonly keyword: string;
  readonly problem: IssueProblem;
  readonly arrays: number;
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
  const wordings = new WeakMap<object, FieldWording>();
  const sites = new Map<string, Site[]>();

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
    return { parentSchema, keyword: error.keyword, problem, arrays, path, rank, code, layer, start };
  };

  const siteFor = (
    error: ErrorObject,
    args: unknown,
    parentSchema: unknown,
    name: string | undefined,
    problem: IssueProblem,
    arrays: number,
  ): Site => {
    const cacheable = arrays !== -1 && problem.kind !== 'duplicates';
    const key = name === undefined ? error.instancePath : `${error.instancePath}/${name}`;
    const candidates = cacheable ? sites.get(key) : undefined;
    if (candidates !== undefined) {
      for (const site of candidates) {
        if (
          site.parentSchema === parentSchema &&
          site.keyword === error.keyword &&
          site.problem === problem &&
          site.arrays === arrays
        ) {
          return site;
        }
      }
    }
    const site = createSite(error, args, parentSchema, name, problem, arrays);
    if (cacheable) {
      if (sites.size >= maxSites) sites.clear();
      const list = sites.get(key);
      if (list === undefined) sites.set(key, [site]);
      else list.push(site);
    }
    return site;
  };

  return (errors, args) => {
    const dropped: boolean[] = [];
    collapseBranches(errors, dropped, guide);
    dropBelowTypeErrors(errors, dropped);
    const issues: ValidationIssue[] = [];
    const ranks: number[] = [];
    let seen: Set<string> | undefined;
    for (let index = 0; index < errors.length; index += 1) {
      const error = errors[index];
      if (error === undefined || dropped[index] === true) continue;
      const parentSchema = parentSchemaOf(error, guide);
      const { value, arrays } = walk(args, error.instancePath);
      let name: string | undefined;
      let problem = mismatch;
      let received: Received;
      switch (error.keyword) {
        case 'required':
        case 'dependentRequired':
        case 'dependencies': {
          name = String(param(error, 'missingProperty'));
          const property = param(error, 'property');
          if (error.keyword !== 'required' && typeof property === 'string')
            problem = { kind: 'missing_with', property };
          else problem = missing;
          received = nothing;
          break;
        }
        case 'additionalProperties':
        case 'unevaluatedProperties':
          name = String(
            param(error, error.keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty'),
          );
          received = { kind: 'value', value: childValue(value, name) };
          break;
        case 'propertyNames':
          name = String(param(error, 'propertyName'));
          problem = fieldName;
          received = omitted;
          break;
        default:
          problem = problemOf(error);
          received = { kind: 'value', value };
      }
      const site = siteFor(error, args, parentSchema, name, problem, arrays);
      if (issues.length >= linearScanLimit) seen ??= new Set(issues.map((issue) => issue.path));
      if (seen === undefined ? issues.some((issue) => issue.path === site.path) : seen.has(site.path)) continue;
      seen?.add(site.path);
      issues.push({
        path: site.path,
        code: site.code,
        layer: site.layer,
        message: site.start + texts.received(received),
      });
      ranks.push(site.rank);
    }
    return inSchemaOrder(issues, ranks);
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

function collapseBranches(errors: readonly ErrorObject[], dropped: boolean[], guide: SchemaGuide): void {
  for (let index = 0; index < errors.length; index += 1) {
    const error = errors[index];
    if (error === undefined) continue;
    if (error.keyword === 'if') dropped[index] = true;
    const keyword = collapsingKeywords.get(error.keyword);
    if (keyword === undefined) continue;
    const members = guide.membersOf(parentSchemaOf(error, guide), keyword);
    // Branch errors come right before the error of their anyOf/oneOf: walk back while they belong to it.
    for (let back = index - 1; back >= 0; back -= 1) {
      const earlier = errors[back];
      if (earlier === undefined || !within(earlier.instancePath, error.instancePath)) break;
      if (!members.has(parentSchemaOf(earlier, guide))) break;
      dropped[back] = true;
    }
  }
}

/** A value of the wrong type gets one issue: its other keyword errors, and any below it, are noise. */
function dropBelowTypeErrors(errors: readonly ErrorObject[], dropped: boolean[]): void {
  const typed: number[] = [];
  for (let index = 0; index < errors.length; index += 1) {
    if (errors[index]?.keyword === 'type' && dropped[index] !== true) typed.push(index);
  }
  if (typed.length === 0) return;
  if (typed.length > linearScanLimit) {
    dropBelowManyTypeErrors(errors, dropped, typed);
    return;
  }
  for (let index = 0; index < errors.length; index += 1) {
    const error = errors[index];
    if (error === undefined || dropped[index] === true) continue;
    for (const owner of typed) {
      const typeError = errors[owner];
      if (owner === index || typeError === undefined || !within(error.instancePath, typeError.instancePath)) continue;
      // At the same path only the first type error stays; below a type error nothing does.
      if (typeError.instancePath !== error.instancePath || owner < index || error.keyword !== 'type') {
        dropped[index] = true;
        break;
      }
    }
  }
}

/** The same as `dropBelowTypeErrors`, by looking up each ancestor path (for calls with very many type errors). */
function dropBelowManyTypeErrors(errors: readonly ErrorObject[], dropped: boolean[], typed: readonly number[]): void {
  const firstAt = new Map<string, number>();
  for (const index of typed) {
    const pointer = errors[index]?.instancePath ?? '';
    if (!firstAt.has(pointer)) firstAt.set(pointer, index);
  }
  for (let index = 0; index < errors.length; index += 1) {
    const error = errors[index];
    if (error === undefined || dropped[index] === true) continue;
    let pointer = error.instancePath;
    for (;;) {
      const owner = firstAt.get(pointer);
      if (owner !== undefined && owner !== index) {
        dropped[index] = true;
        break;
      }
      if (pointer === '') break;
      pointer = pointer.slice(0, pointer.lastIndexOf('/'));
    }
  }
}

function within(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || (pointer.startsWith(ancestor) && pointer[ancestor.length] === '/');
}

function parentSchemaOf(error: ErrorObject, guide: SchemaGuide): unknown {
  if (error.parentSchema !== undefined) return error.parentSchema;
  return guide.resolver.atPointer(error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')));
}

function param(error: ErrorObject, name: string): unknown {
  const params: Record<string, unknown> = error.params;
  return params[name];
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

function inSchemaOrder(issues: ValidationIssue[], ranks: readonly number[]): ValidationIssue[] {
  let sorted = true;
  for (let index = 1; index < ranks.length; index += 1) {
    if ((ranks[index] ?? 0) < (ranks[index - 1] ?? 0)) sorted = false;
  }
  if (sorted) return issues;
  return issues
    .map((issue, index) => ({ issue, rank: ranks[index] ?? 0 }))
    .sort((left, right) => left.rank - right.rank)
    .map(({ issue }) => issue);
}
