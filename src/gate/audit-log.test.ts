import { describe, expect, it } from 'vitest';
import { auditEntryMayWait } from './audit-log.js';

describe('auditEntryMayWait', () => {
  it('lets only the entry of a read that executed wait for later writes', () => {
    expect(auditEntryMayWait({ sideEffect: 'read', decision: 'allowed' })).toBe(true);
    expect(auditEntryMayWait({ sideEffect: 'read', decision: 'approved' })).toBe(true);
    expect(auditEntryMayWait({ sideEffect: 'read', decision: 'denied' })).toBe(false);
    expect(auditEntryMayWait({ sideEffect: 'reversible', decision: 'allowed' })).toBe(false);
    expect(auditEntryMayWait({ sideEffect: 'irreversible', decision: 'auto_approved' })).toBe(false);
  });
});
