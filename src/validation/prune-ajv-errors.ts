import type { ErrorObject } from 'ajv/dist/2020.js';
import { parentSchemaOf } from './ajv-error-fields.js';
import type { SchemaGuide } from './schema-guide.js';

/** Keywords whose failure is reported once, in place of the errors of their branches (value: the branches' keyword). */
const collapsingKeywords: ReadonlyMap<string, string> = new Map([
  ['anyOf', 'anyOf'],
  ['oneOf', 'oneOf'],
  ['discriminator', 'oneOf'],
  ['contains', 'contains'],
  ['propertyNames', 'propertyNames'],
]);
/** What `pruneAjvErrors` returns when every error stays (most refused calls have neither type errors nor composites). */
const nothingDropped: readonly boolean[] = Object.freeze([]);
/** Below this many type errors, each error is checked against all of them rather than through a map. */
const linearScanLimit = 16;

/**
 * Marks the ajv errors that would only be noise to a model: the branch
 * errors of a failed `anyOf`/`oneOf`/`contains`/`propertyNames` (their own
 * error stays), `if` errors (the `then`/`else` errors say it), and every
 * other error at or below a value of the wrong type. Returns, per index,
 * true for an error to leave out.
 *
 * @example
 * const dropped = pruneAjvErrors({ errors: validate.errors ?? [], guide });
 */
export function pruneAjvErrors({
  errors,
  guide,
}: {
  errors: readonly ErrorObject[];
  guide: SchemaGuide;
}): readonly boolean[] {
  if (!guide.hasComposites && !hasTypeError(errors)) return nothingDropped;
  const dropped: boolean[] = [];
  if (guide.hasComposites) collapseBranches(errors, dropped, guide);
  dropBelowTypeErrors(errors, dropped);
  return dropped;
}

function hasTypeError(errors: readonly ErrorObject[]): boolean {
  for (const error of errors) if (error.keyword === 'type') return true;
  return false;
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
  let typed: number[] | undefined;
  for (let index = 0; index < errors.length; index += 1) {
    if (errors[index]?.keyword !== 'type' || dropped[index] === true) continue;
    typed ??= [];
    typed.push(index);
  }
  if (typed === undefined) return;
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
