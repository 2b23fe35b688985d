import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputFileError } from '../errors/input-file-error.js';
import { createAuthenticator, demoAuthConfig, demoTokens, parseAuthConfig, readAuthConfig } from './auth-config.js';

describe('createAuthenticator', () => {
  it('maps a bearer token to its principal, by the token itself or its sha256', () => {
    const hashed = createHash('sha256').update('staff-secret-1-0123456789abcdef0123').digest('hex');
    const authenticate = createAuthenticator(
      parseAuthConfig({
        tokens: [
          { token: 'alice-secret-1-0123456789abcdef0123', tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
          { tokenSha256: hashed.toUpperCase(), tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
        ],
      }),
    );
    expect(authenticate('Bearer alice-secret-1-0123456789abcdef0123')).toEqual({
      tenantId: 'shop',
      userId: 'C1001',
      roles: ['customer'],
    });
    expect(authenticate('bearer staff-secret-1-0123456789abcdef0123')?.roles).toEqual(['approver']);
    expect(
      [undefined, '', 'Bearer', 'Bearer wrong-token', 'Basic alice-secret-1-0123456789abcdef0123'].map(authenticate),
    ).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('knows the demo customer and approver', () => {
    const authenticate = createAuthenticator(demoAuthConfig, { demo: true });
    expect(authenticate(`Bearer ${demoTokens.customer}`)).toEqual({
      tenantId: 'shop',
      userId: 'C1001',
      roles: ['customer'],
    });
    expect(authenticate(`Bearer ${demoTokens.approver}`)?.roles).toContain('approver');
  });
});

const longToken = 'long-enough-token-0123456789abcdef';

describe('parseAuthConfig', () => {
  it('rejects a malformed entry naming where it is', () => {
    const attempt = (value: unknown) => {
      try {
        parseAuthConfig(value, { file: 'auth.json' });
        return 'accepted';
      } catch (error) {
        return InputFileError.isInstance(error) ? error.message : String(error);
      }
    };
    expect(
      [
        [],
        { tokens: [{ token: 'short', tenantId: 't', userId: 'u', roles: [] }] },
        { tokens: [{ tenantId: 't', userId: 'u', roles: [] }] },
        { tokens: [{ token: longToken, tenantId: '', userId: 'u', roles: [] }] },
        { tokens: [{ token: longToken, tenantId: 't', userId: 'u', roles: 'approver' }] },
        { tokens: [{ tokenSha256: 'abc', tenantId: 't', userId: 'u', roles: [] }] },
      ].map(attempt),
    ).toMatchInlineSnapshot(`
      [
        "auth.json: expected an object with a "tokens" array",
        "auth.json: tokens[0] (tenant t, user u): token is 5 characters; bearer tokens need at least 32 (e.g. \`openssl rand -hex 24\`), or give its sha256 as "tokenSha256"",
        "auth.json: tokens[0] needs "token" or "tokenSha256"",
        "auth.json: tokens[0].tenantId must be a non-empty string",
        "auth.json: tokens[0].roles must be an array of strings",
        "auth.json: tokens[0].tokenSha256 must be 64 hex digits",
      ]
    `);
  });

  it('refuses the public demo tokens as real credentials, by token or by sha256, and only demo mode accepts them', () => {
    const demoHash = createHash('sha256').update(demoTokens.approver).digest('hex');
    for (const entry of [{ token: demoTokens.approver }, { tokenSha256: demoHash.toUpperCase() }]) {
      expect(() =>
        parseAuthConfig({ tokens: [{ ...entry, tenantId: 'shop', userId: 'S9001', roles: ['approver'] }] }),
      ).toThrow(/tokens\[0\] \(tenant shop, user S9001\): token is one of the public demo tokens/);
    }
    expect(() => createAuthenticator(demoAuthConfig)).toThrow(/public demo tokens/);
    expect(() => createAuthenticator(demoAuthConfig)).not.toThrow(demoTokens.customer);
    expect(createAuthenticator(demoAuthConfig, { demo: true })(`Bearer ${demoTokens.customer}`)?.userId).toBe('C1001');
  });

  it('reads a file and names it when it is not JSON', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-auth-'));
    const good = join(directory, 'auth.json');
    writeFileSync(good, JSON.stringify({ tokens: [{ token: longToken, tenantId: 't', userId: 'u', roles: [] }] }));
    expect((await readAuthConfig({ file: good })).tokens).toHaveLength(1);
    const bad = join(directory, 'bad.json');
    writeFileSync(bad, '{ tokens: ');
    await expect(readAuthConfig({ file: bad })).rejects.toThrow(`${bad}:1:3: not valid JSON: unexpected "t"`);
    await expect(readAuthConfig({ file: join(directory, 'missing.json') })).rejects.toThrow('cannot be read');
  });
});
