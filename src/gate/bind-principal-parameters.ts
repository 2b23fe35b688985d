import type { Principal } from '../core/principal.js';
import type { RegisteredTool } from '../tools/tool-registry.js';
import type { BoundParameter } from '../tools/tool-types.js';

/**
 * The arguments with every parameter the tool binds to the principal set
 * from the principal, whatever the model sent for it. Without a principal
 * those parameters are removed (the tool refuses if it needs them): a value
 * the model made up never stands in for an identity.
 *
 * @example
 * // tool.definition.boundParameters: { tenant_id: 'tenantId', user_id: 'userId' }
 * bindPrincipalParameters({ args: { order_id: 'SO20260906', user_id: 'C1002', tenant_id: 'other' }, tool, principal });
 * // { order_id: 'SO20260906', user_id: 'C1001', tenant_id: 'shop' }
 */
export function bindPrincipalParameters({
  args,
  tool,
  principal,
}: {
  args: Readonly<Record<string, unknown>>;
  tool: RegisteredTool;
  principal: Principal | undefined;
}): Record<string, unknown> {
  const boundParameters = tool.definition.boundParameters;
  if (boundParameters === undefined) return { ...args };
  const bound = ownCopy(args);
  // `for…in` over the definition's own keys: no array of entries allocated per call.
  for (const name in boundParameters) {
    if (!Object.hasOwn(boundParameters, name)) continue;
    const binding = boundParameters[name] as BoundParameter;
    if (principal === undefined) delete bound[name];
    else bound[name] = typeof binding === 'function' ? binding(principal) : principal[binding];
  }
  return bound;
}

/**
 * `{ ...args }` for the own enumerable string keys of arguments (JSON data),
 * built key by key. A spread copy of an object `JSON.parse` made takes a map
 * that V8 (Node 20) migrates when a property is then added, the bound
 * parameter: about 0.9 µs a call, against 40 ns for a copy that grows
 * along ordinary transitions. An own `__proto__` key is defined, not
 * assigned (assigning it would set the copy's prototype).
 */
function ownCopy(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key in args) {
    if (!Object.hasOwn(args, key)) continue;
    if (key === '__proto__') {
      Object.defineProperty(copy, key, { value: args[key], enumerable: true, writable: true, configurable: true });
    } else {
      copy[key] = args[key];
    }
  }
  return copy;
}
