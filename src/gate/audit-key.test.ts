import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { auditAnchor } from './audit-anchor.js';
import { checkAuditKey } from './audit-key.js';
import { verifyAuditChain } from './verify-audit-chain.js';

describe('checkAuditKey', () => {
  it('refuses a key shorter than 32 characters, naming ARBITER_AUDIT_KEY and its length', () => {
    expect(() => checkAuditKey('abc')).toThrow(
      'ARBITER_AUDIT_KEY is 3 characters: an anchor is signed only with a key of 32 characters or more (e.g. `openssl rand -hex 24`)',
    );
    expect(() => checkAuditKey(undefined)).toThrow(/^set ARBITER_AUDIT_KEY/);
    expect(() => checkAuditKey('x'.repeat(31))).toThrow(ConfigurationError);
    expect(checkAuditKey('x'.repeat(32))).toBe('x'.repeat(32));
  });

  it('keeps auditAnchor from signing with a short key', () => {
    const report = verifyAuditChain({
      rows: [],
      origin: { lastRowId: 0, rowsThen: 0, startedAt: 1, store: 'a'.repeat(32) },
      purgeTool: 'arbiter.audit_purge',
    });
    let thrown: unknown;
    try {
      auditAnchor({ report, at: 2, key: 'abc' });
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown) && thrown.setting).toBe('ARBITER_AUDIT_KEY');
    expect(auditAnchor({ report, at: 2, key: 'k'.repeat(32) })).toMatchObject({
      format: 'arbiter-audit-anchor-v2',
      store: 'a'.repeat(32),
      origin: { lastRowId: 0, rowsThen: 0, startedAt: 1 },
    });
  });
});
