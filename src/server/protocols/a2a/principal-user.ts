import type { User } from '@a2a-js/sdk/server';
import type { Principal } from '../../../core/principal.js';

/**
 * The A2A SDK's view of the caller: arbiter's principal, authenticated by
 * the bearer token as on every other route. Its `userName` names tenant and
 * user, so the SDK's per-owner state (event buses) keeps tenants apart.
 *
 * @example
 * new ServerCallContext({ user: new PrincipalUser(c.get('principal')) });
 */
export class PrincipalUser implements User {
  readonly principal: Principal;

  constructor(principal: Principal) {
    this.principal = principal;
  }

  get isAuthenticated(): boolean {
    return true;
  }

  get userName(): string {
    return JSON.stringify([this.principal.tenantId, this.principal.userId]);
  }
}

/**
 * The principal behind an A2A call, or undefined for a call no bearer token
 * authenticated (the routes never let one through).
 *
 * @example
 * const principal = principalOf(requestContext.context.user);
 */
export function principalOf(user: User | undefined): Principal | undefined {
  return user instanceof PrincipalUser ? user.principal : undefined;
}
