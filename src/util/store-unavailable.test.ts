import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from './store-unavailable.js';

describe('isStoreUnavailable', () => {
  it('recognises a restart, a refused connection and a socket closed under the client', () => {
    expect(isStoreUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(
      true,
    );
    expect(isStoreUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
  });

  it('rejects what the database answered: a conflict, a constraint, bad SQL', () => {
    expect(isStoreUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isStoreUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isStoreUnavailable(new Error('something else'))).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
  });
});
