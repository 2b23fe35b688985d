import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Locale } from '../core/locale.js';
import { isRecord } from '../util/is-record.js';
import { param, parentSchemaOf } from './ajv-error-fields.js';
import type { IssueProblem } from './issue-parts.js';
import { createIssueSites } from './issue-sites.js';
import { childValue, displayName, pointerSegments, valueAt } from './json-path.js';
import { pruneAjvErrors } from './prune-ajv-errors.js';
import type { SchemaGuide } from './schema-guide.js';
import { suggestEnumValue } from './suggest-enum-value.js';
import { misnamedFields } from './suggest-field-match.js';
import { type ArgumentsCheck, type OtherFieldSearch, otherFieldFor } from './suggest-other-field.js';
import type { ValidationIssue } from './validation-issue.js';
import { validationTexts } from './validation-texts.js';

/** Turns the errors of one failed ajv run into issues. */
export type IssueBuilder = (errors: readonly ErrorObject[], args: unknown) => ValidationIssue[];

const mismatch: IssueProblem = { kind: 'mismatch' };
const missing: IssueProblem = { kind: 'missing' };
const severalVariants: IssueProblem = { kind: 'several_variants' };
const fieldName: IssueProblem = { kind: 'field_name' };
/** Checks of a whole call one refusal may spend looking for the argument a refused value fits. */
const maxChecks = 32;
/** Below this many issues, a repeated path is found by scanning them rather than with a set. */
const linearScanLimit = 16;

/**
 * Builds the issue mapper of one tool: ajv's errors become issues a model
 * can act on, with the branch errors of an `anyOf`/`oneOf` collapsed into
 * one `no_matching_variant`, nothing more reported for a value of the wrong
 * type, one issue per path, in the order of the schema's fields. What does
 * not depend on the value sent is worded once per site and kept; a refused
 * call then costs one pass over ajv's errors and one string per issue.
 *
 * @example
 * const toIssues = createIssueBuilder({ guide: schemaGuide(schema), toolName: 'apply_refund', locale: 'en' });
 * if (!validate(args)) return toIssues(validate.errors ?? [], args);
 */
export function createIssueBuilder({
  guide,
  toolName,
  locale,
  check,
}: {
  guide: SchemaGuide;
  toolName: string;
  locale: Locale;
  /** The tool's whole check, to find another argument a refused value fits (see `otherFieldFor`); none: not tried. */
  check?: ArgumentsCheck;
}): IssueBuilder {
  const texts = validationTexts(locale);
  const siteFor = createIssueSites({ guide, toolName, texts });
  const sentNothing = texts.received({ kind: 'nothing' });
  /**
   * What was sent for a top-level argument whose value another argument would take (see `otherFieldFor`), or
   * undefined.
   */
  const sentForOther = (
    checkCall: ArgumentsCheck,
    field: string,
    value: unknown,
    args: Record<string, unknown>,
    search: OtherFieldSearch,
  ): string | undefined => {
    const other = otherFieldFor({ args, field, guide, check: checkCall, ...search });
    if (other === undefined) return undefined;
    if (!other.alsoSent) return texts.received({ kind: 'other_field', value, field: other.field });
    // The model sent the value under both names; leaving this one out fixes the call only when it is optional.
    return guide.requiredArguments.includes(field)
      ? undefined
      : texts.received({ kind: 'sent_twice', value, field: other.field, extra: field });
  };

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

  return (errors, args) => {
    const dropped = pruneAjvErrors({ errors, guide });
    const issues: ValidationIssue[] = [];
    const ranks: number[] = [];
    let seen: Set<string> | undefined;
    const misnamedAt = new Map<string, Map<string, string>>();
    let search: OtherFieldSearch | undefined;
    for (let index = 0; index < errors.length; index += 1) {
      const error = errors[index];
      if (error === undefined || dropped[index] === true) continue;
      const parentSchema = parentSchemaOf(error, guide);
      // ajv's verbose errors carry the value; with another ajv instance, look it up.
      const value = error.data !== undefined ? error.data : valueAt(args, error.instancePath);
      let name: string | undefined;
      let problem = mismatch;
      let sent: string;
      /** A value refused as it is (not a missing or unknown field): another argument may take it. */
      let valueRefused = false;
      switch (error.keyword) {
        case 'required':
        case 'dependentRequired':
        case 'dependencies': {
          name = String(param(error, 'missingProperty'));
          const property = param(error, 'property');
          problem = error.keyword !== 'required' && typeof property === 'string' ? missingWith(property) : missing;
          let misnamed = misnamedAt.get(error.instancePath);
          if (misnamed === undefined) {
            misnamed = misnamedFields({ value, schema: parentSchema });
            misnamedAt.set(error.instancePath, misnamed);
          }
          const sentInstead = misnamed.get(name);
          sent =
            sentInstead === undefined
              ? sentNothing
              : // The model chose that name: shown quoted and escaped unless it looks like a field name.
                texts.received({ kind: 'misnamed', sent: displayName(sentInstead), wanted: name });
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
        case 'enum': {
          const nearest = typeof value === 'string' ? nearestAllowed(value, param(error, 'allowedValues')) : undefined;
          valueRefused = nearest === undefined;
          sent =
            nearest === undefined
              ? texts.sentValue(value)
              : texts.received({ kind: 'near_value', value: value as string, nearest });
          break;
        }
        default:
          problem = problemOf(error);
          valueRefused = true;
          sent = texts.sentValue(value);
      }
      const site = siteFor(error, args, parentSchema, name, problem);
      if (issues.length >= linearScanLimit) seen ??= new Set(issues.map((issue) => issue.path));
      if (seen === undefined ? hasPath(issues, site.path) : seen.has(site.path)) continue;
      seen?.add(site.path);
      const field = valueRefused && check !== undefined ? topLevelField(error.instancePath) : undefined;
      if (field !== undefined && check !== undefined && isRecord(args)) {
        search ??= { refused: new Set(errors.map((each) => each.instancePath)), budget: { checks: maxChecks } };
        sent = sentForOther(check, field, value, args, search) ?? sent;
      }
      const issue: ValidationIssue = {
        path: site.path,
        code: site.code,
        layer: site.layer,
        message: site.start + sent,
      };
      insertInSchemaOrder(issues, ranks, issue, site.rank);
    }
    return issues;
  };
}

function hasPath(issues: readonly ValidationIssue[], path: string): boolean {
  for (const issue of issues) if (issue.path === path) return true;
  return false;
}

/** Adds an issue after every issue of the same or a lower rank, so that equal ranks keep ajv's order. */
function insertInSchemaOrder(issues: ValidationIssue[], ranks: number[], issue: ValidationIssue, rank: number): void {
  let position = issues.length;
  issues.push(issue);
  ranks.push(rank);
  for (; position > 0; position -= 1) {
    const before = issues[position - 1];
    const beforeRank = ranks[position - 1];
    if (before === undefined || beforeRank === undefined || beforeRank <= rank) break;
    issues[position] = before;
    ranks[position] = beforeRank;
  }
  issues[position] = issue;
  ranks[position] = rank;
}

/** The top-level argument an error's instance path names (`/order_id`), or undefined for the root or a nested one. */
function topLevelField(instancePath: string): string | undefined {
  return instancePath.length < 2 || instancePath.indexOf('/', 1) !== -1 ? undefined : pointerSegments(instancePath)[0];
}

/** The allowed value a string sent for an enum most likely meant, if one is that close. */
function nearestAllowed(sent: string, allowed: unknown): string | undefined {
  return Array.isArray(allowed) ? suggestEnumValue({ sent, allowed }) : undefined;
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
