import type { Principal } from '../core/principal.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import type { BoundParameter, DataScope, IdempotencyScope, PrincipalField, ToolDefinition } from './tool-types.js';

const dataScopes: readonly DataScope[] = ['global', 'tenant', 'tenant_user'];
const idempotencyScopes: readonly IdempotencyScope[] = ['principal', 'tenant'];
const principalFields: readonly PrincipalField[] = ['tenantId', 'userId'];

/**
 * Holds a tool to the data scope it declares (or, undeclared, to the one its
 * bindings imply) and returns it: `undefined` when the tool neither declares
 * one nor binds the principal. Throws `ToolDefinitionError` naming the tool
 * when it binds a user but no tenant, declares a tenant scope without
 * binding the tenant, declares `tenant_user` without binding the user,
 * declares `global` while binding the principal, or names an unknown scope
 * or principal field.
 *
 * @example
 * checkDataScope({ ...queryOrder, boundParameters: { user_id: 'userId' } });
 * // ToolDefinitionError: tool "query_order" binds user_id from the principal's user id but no parameter from its tenant…
 */
export function checkDataScope(tool: ToolDefinition): DataScope | undefined {
  const name = tool.name;
  const fail = (message: string): never => {
    throw new ToolDefinitionError({ toolName: name, message: `tool "${name}" ${message}` });
  };
  const tenantBound: string[] = [];
  const userBound: string[] = [];
  for (const [parameter, binding] of Object.entries(tool.boundParameters ?? {})) {
    const fields = fieldsRead(binding as unknown, () =>
      fail(
        `binds ${parameter} to ${JSON.stringify(binding)}; use a principal field (${principalFields.map((field) => `'${field}'`).join(', ')}) or a function of the principal`,
      ),
    );
    if (fields.has('tenantId')) tenantBound.push(parameter);
    if (fields.has('userId')) userBound.push(parameter);
  }
  const declared: unknown = tool.dataScope;
  if (declared !== undefined && !dataScopes.includes(declared as DataScope)) {
    fail(`has dataScope ${JSON.stringify(declared)}; expected one of ${dataScopes.join(', ')}`);
  }
  const idempotencyScope: unknown = tool.idempotencyScope;
  if (idempotencyScope !== undefined && !idempotencyScopes.includes(idempotencyScope as IdempotencyScope)) {
    fail(`has idempotencyScope ${JSON.stringify(idempotencyScope)}; expected one of ${idempotencyScopes.join(', ')}`);
  }
  const bindTenant = "bind the tenant too, e.g. boundParameters: { tenant_id: 'tenantId', user_id: 'userId' }";
  if (userBound.length > 0 && tenantBound.length === 0) {
    fail(
      `binds ${userBound.join(', ')} from the principal's user id but no parameter from its tenant: a user id is ` +
        `unique only within its tenant, so the tool would serve one tenant's user another tenant's data. ` +
        `${upperFirst(bindTenant)}, and key the data by both`,
    );
  }
  if ((declared === 'tenant' || declared === 'tenant_user') && tenantBound.length === 0) {
    fail(`declares dataScope '${declared}' but binds no parameter from the principal's tenant: ${bindTenant}`);
  }
  if (declared === 'tenant_user' && userBound.length === 0) {
    fail(
      "declares dataScope 'tenant_user' but binds no parameter from the principal's user id: bind it, e.g. " +
        "boundParameters: { tenant_id: 'tenantId', user_id: 'userId' }, or declare dataScope 'tenant'",
    );
  }
  if (declared === 'global' && tenantBound.length + userBound.length > 0) {
    fail(
      `declares dataScope 'global' but binds ${[...new Set([...tenantBound, ...userBound])].join(', ')} from the ` +
        "principal: a global tool's data is the same for every caller; declare 'tenant' or 'tenant_user'",
    );
  }
  if (declared !== undefined) return declared as DataScope;
  if (tenantBound.length > 0) return userBound.length > 0 ? 'tenant_user' : 'tenant';
  return undefined;
}

/**
 * The principal's fields a binding reads: the field it names, or for a
 * function the properties it touched when called once with a probe.
 */
function fieldsRead(binding: unknown, invalid: () => never): ReadonlySet<string> {
  if (typeof binding === 'string') {
    if (!principalFields.includes(binding as PrincipalField)) invalid();
    return new Set([binding]);
  }
  if (typeof binding !== 'function') invalid();
  const read = new Set<string>();
  const probe = new Proxy<Principal>(
    { tenantId: '', userId: '', roles: [] },
    {
      get(target, property, receiver) {
        if (typeof property === 'string') read.add(property);
        return Reflect.get(target, property, receiver) as unknown;
      },
    },
  );
  try {
    (binding as BoundParameter & ((principal: Principal) => unknown))(probe);
  } catch {
    // A binding that fails on the probe's empty values still read what it read before failing.
  }
  return read;
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
