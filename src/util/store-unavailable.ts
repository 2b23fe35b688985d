/**
 * SQLSTATE codes of a database that is going away or not back yet: class 08
 * (connection exception) and the operator-intervention codes a restart sends
 * (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now).
 */
const unavailableStates = /^(08|57P0[123])/;
/** Node's socket errors of a server that is down or dropped the connection. */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

/**
 * True for a failure that says the database could not be reached or dropped
 * the connection (a restart, a failover, a network cut), as opposed to one it
 * answered (a constraint, a conflict, bad SQL): the same work may succeed once
 * it is back. A caller retries only what it knows was not applied, or what is
 * idempotent.
 *
 * @example
 * if (isStoreUnavailable(error)) setTimeout(() => write(events), 500);
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined && (unavailableStates.test(code) || socketCodes.has(code))) return true;
  const message = error instanceof Error ? error.message : '';
  // node-postgres reports a socket closed under it without a code.
  return /^Connection terminated|Client has encountered a connection error|Connection is closed/i.test(message);
}
