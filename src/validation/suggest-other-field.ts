import type { ErrorObject } from 'ajv/dist/2020.js';
import type { SchemaGuide } from './schema-guide.js';
import { isSchemaObject } from './schema-resolver.js';

/** Checks a whole arguments object against the tool's schema: ajv's errors, none when it is valid. */
export type ArgumentsCheck = (args: Record<string, unknown>) => readonly ErrorObject[];

/** Keywords that give a field a recognisable form; a field without one (free text) would take any string. */
const formKeywords = ['pattern', 'format', 'enum', 'const'] as const;
/** Above this many top-level arguments the other fields are not tried: a refusal stays cheap. */
const maxTried = 32;

/**
 * The one other top-level argument that a value refused for `field` would
 * be valid for, so the message can say "did you mean": a refund number sent
 * as `order_id` when the tool also takes `refund_no`. Only arguments whose
 * schema has a form of its own (a pattern, a format, an enum or a const) are
 * tried, and of those only ones the call left out, sent with a refused value,
 * or sent with this very value (the model then sent it twice); each is tried
 * by checking the call with the value moved there. None is named when no
 * such argument, or more than one, takes the value.
 *
 * @example
 * otherFieldFor({ args: { order_id: 'RF2026090001' }, field: 'order_id', guide, check });
 * // 'refund_no'
 */
export function otherFieldFor({
  args,
  field,
  guide,
  check,
}: {
  args: Record<string, unknown>;
  field: string;
  guide: SchemaGuide;
  check: ArgumentsCheck;
}): string | undefined {
  const names = guide.argumentOrder;
  if (names.size > maxTried || !names.has(field)) return undefined;
  const value = args[field];
  if (value === undefined || (typeof value === 'object' && value !== null)) return undefined;
  let found: string | undefined;
  let refused: ReadonlySet<string> | undefined;
  for (const name of names.keys()) {
    if (name === field || !hasForm(guide, name)) continue;
    if (Object.hasOwn(args, name) && args[name] !== value) {
      refused ??= new Set(check(args).map((error) => error.instancePath));
      if (!refused.has(`/${escapePointer(name)}`)) continue;
    }
    // No prototype: a `__proto__` key the model sent is copied as a key, as JSON.parse made it.
    const moved: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(args)) if (key !== field) moved[key] = args[key];
    moved[name] = value;
    const at = `/${escapePointer(name)}`;
    const fits = !check(moved).some((error) => error.instancePath === at || error.instancePath.startsWith(`${at}/`));
    if (!fits) continue;
    if (found !== undefined) return undefined;
    found = name;
  }
  return found;
}

function hasForm(guide: SchemaGuide, name: string): boolean {
  const schema = guide.propertySchema(guide.resolver.root, name);
  if (!isSchemaObject(schema)) return false;
  const flat = guide.resolver.flatten(schema);
  return formKeywords.some((keyword) => Object.hasOwn(flat, keyword));
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
