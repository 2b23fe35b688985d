/**
 * Who a run acts for, established by the server (a bearer token, a session
 * cookie), never by the model.
 *
 * @example
 * const principal: Principal = { tenantId: 'acme', userId: 'C1001', roles: ['customer'] };
 */
export interface Principal {
  readonly tenantId: string;
  readonly userId: string;
  readonly roles: readonly string[];
}
