import { redactedMarker } from '../util/redact.js';

/** What a projection needs to know about one tool's fields. */
export interface ToolFieldPolicy {
  /** True when the value under this key must not leave the live conversation. */
  isSensitive(key: string): boolean;
  /** Filled from the signed-in principal (user id, tenant id): internal, never shown. */
  readonly boundParameters: readonly string[];
}

/** Word parts of a field name that mark personal data: phone, address, email, identity numbers, secrets. */
const sensitiveWords = new Set([
  'phone',
  'phones',
  'telephone',
  'tel',
  'mobile',
  'cellphone',
  'address',
  'addresses',
  'addr',
  'email',
  'emails',
  'mail',
  'passport',
  'ssn',
  'idcard',
  'iban',
  'password',
  'passcode',
  'secret',
]);

const sensitivePairs = new Set(['id card', 'card number', 'e mail', 'national id', 'tax id', 'bank account']);

/**
 * True when a field name reads like personal data (`recipient_phone`,
 * `shippingAddress`, `contact-email`, `id_card`), judged on its word parts
 * so `hotel` or `mailbox_count` stay visible.
 *
 * @example
 * looksSensitive('recipient_phone'); // true
 * looksSensitive('order_id'); // false
 */
export function looksSensitive(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    if (sensitiveWords.has(word)) return true;
    if (index > 0 && sensitivePairs.has(`${words[index - 1]} ${word}`)) return true;
  }
  return false;
}

/**
 * Property names flagged `"x-sensitive": true` anywhere in a JSON Schema.
 *
 * @example
 * schemaSensitiveNames({ type: 'object', properties: { note: { type: 'string', 'x-sensitive': true } } }); // Set { 'note' }
 */
export function schemaSensitiveNames(schema: unknown): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const properties = (node as { properties?: unknown }).properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [name, property] of Object.entries(properties)) {
        if ((property as { 'x-sensitive'?: unknown } | null)?.['x-sensitive'] === true) names.add(name);
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(schema);
  return names;
}

/**
 * The field policy of a tool: its `sensitive` list, properties its schema
 * flags `"x-sensitive": true`, and any name that reads like personal data.
 *
 * @example
 * const policy = toolFieldPolicy({ sensitive: ['contact'], parameters: schema, boundParameters: ['user_id'] });
 * policy.isSensitive('contact'); // true
 */
export function toolFieldPolicy({
  sensitive = [],
  parameters,
  boundParameters = [],
}: {
  sensitive?: readonly string[];
  parameters?: unknown;
  boundParameters?: readonly string[];
}): ToolFieldPolicy {
  const named = new Set([...sensitive, ...schemaSensitiveNames(parameters)]);
  return { isSensitive: (key) => named.has(key) || looksSensitive(key), boundParameters };
}

/**
 * A copy of tool arguments fit to show a person: bound parameters removed,
 * every sensitive value at any depth replaced by `[redacted]`.
 *
 * @example
 * displayArguments({ order_id: 'SO1', phone: '138…', user_id: 'C1' }, policy);
 * // { order_id: 'SO1', phone: '[redacted]' }
 */
export function displayArguments(
  args: Readonly<Record<string, unknown>>,
  policy: ToolFieldPolicy,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (policy.boundParameters.includes(key)) continue;
    define(copy, key, policy.isSensitive(key) ? redactedMarker : redactNested(value, policy));
  }
  return copy;
}

function redactNested(value: unknown, policy: ToolFieldPolicy): unknown {
  if (Array.isArray(value)) return value.map((item) => redactNested(item, policy));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    define(copy, key, policy.isSensitive(key) ? redactedMarker : redactNested(item, policy));
  }
  return copy;
}

/** Sets an own property even for `__proto__`, which plain assignment would turn into a prototype change. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
