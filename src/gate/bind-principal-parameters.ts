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
  const bound = { ...args };
  if (boundParameters === undefined) return bound;
  // `for…in` over the definition's own keys: no array of entries allocated per call.
  for (const name in boundParameters) {
    if (!Object.hasOwn(boundParameters, name)) continue;
    const binding = boundParameters[name] as BoundParameter;
    if (principal === undefined) delete bound[name];
    else bound[name] = typeof binding === 'function' ? binding(principal) : principal[binding];
  }
  return bound;
}
