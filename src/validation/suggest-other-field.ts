import type { ErrorObject } from 'ajv/dist/2020.js';
import type { SchemaGuide } from './schema-guide.js';
import { escapePointer, isSchemaObject } from './schema-resolver.js';

/** Checks a whole arguments object against the tool's schema: ajv's errors, none when it is valid. */
export type ArgumentsCheck = (args: Record<string, unknown>) => readonly ErrorObject[];

/**
 * One refusal's search, shared by its fields: the instance paths the call's errors name, and the checks of the
 * call left (each argument tried takes one).
 */
export interface OtherFieldSearch {
  readonly refused: ReadonlySet<string>;
  readonly budget: { checks: number };
}

/** The other argument a refused value fits, and whether the call already sent the value there too. */
export interface OtherField {
  readonly field: string;
  readonly alsoSent: boolean;
}

/** Keywords that give a string field a recognisable form; a field without one (free text) would take any string. */
const stringFormKeywords = ['pattern', 'format', 'enum', 'const'] as const;
/** A number or a boolean is recognisable only by an enum or a const (pattern and format hold only for strings). */
const valueFormKeywords = ['enum', 'const'] as const;
/** Above this many top-level arguments the other fields are not tried: a refusal stays cheap. */
const maxArguments = 32;
/** Identifiers are short; a longer text is not tried anywhere else. */
const maxValueLength = 256;

/**
 * The one other top-level argument that a value refused for `field` would
 * be valid for, so the message can say "did you mean": a refund number sent
 * as `order_id` when the tool also takes `refund_no`. Only arguments with a
 * form of their own are tried (for a string a pattern, a format, an enum or
 * a const; for a number or a boolean an enum or a const), and of those only
 * ones the call left out, sent with a refused value (`refused`, the
 * instance paths of the call's errors) or sent with this very value; each
 * by checking the call with the value moved there, while `budget` lasts
 * (shared by every field of one refusal). None is named when no such
 * argument, or more than one, takes the value.
 *
 * @example
 * otherFieldFor({ args: { order_id: 'RF2026090001' }, field: 'order_id', guide, check, refused, budget: { checks: 32 } });
 * // { field: 'refund_no', alsoSent: false }
 */
export function otherFieldFor({
  args,
  field,
  guide,
  check,
  refused,
  budget,
}: OtherFieldSearch & {
  args: Record<string, unknown>;
  field: string;
  guide: SchemaGuide;
  check: ArgumentsCheck;
}): OtherField | undefined {
  const names = guide.argumentOrder;
  if (names.size > maxArguments || !names.has(field)) return undefined;
  const value = args[field];
  const forms = formsFor(value);
  if (forms === undefined) return undefined;
  let found: OtherField | undefined;
  for (const name of names.keys()) {
    if (name === field || !hasForm(guide, name, forms)) continue;
    const at = `/${escapePointer(name)}`;
    const alsoSent = Object.hasOwn(args, name) && args[name] === value;
    if (Object.hasOwn(args, name) && !alsoSent && !refused.has(at)) continue;
    if (budget.checks <= 0) return undefined;
    budget.checks -= 1;
    // No prototype: a `__proto__` key the model sent is copied as a key, as JSON.parse made it.
    const moved: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(args)) if (key !== field) moved[key] = args[key];
    moved[name] = value;
    if (check(moved).some((error) => error.instancePath === at || error.instancePath.startsWith(`${at}/`))) continue;
    if (found !== undefined) return undefined;
    found = { field: name, alsoSent };
  }
  return found;
}

function formsFor(value: unknown): readonly string[] | undefined {
  if (typeof value === 'string') return value.length <= maxValueLength ? stringFormKeywords : undefined;
  return typeof value === 'number' || typeof value === 'boolean' ? valueFormKeywords : undefined;
}

function hasForm(guide: SchemaGuide, name: string, forms: readonly string[]): boolean {
  const schema = guide.propertySchema(guide.resolver.root, name);
  if (!isSchemaObject(schema)) return false;
  const flat = guide.resolver.flatten(schema);
  return forms.some((keyword) => Object.hasOwn(flat, keyword));
}
