import { ConfigurationError } from '../errors/configuration-error.js';

/**
 * The shortest `ARBITER_AUDIT_KEY` an anchor is signed with, as for the
 * server's bearer tokens: 32 characters of `openssl rand -hex 24` are 192
 * bits. Whoever guesses the key can forge anchors.
 */
export const minimumAuditKeyLength = 32;

/**
 * The key, when it is long enough to sign an anchor with; otherwise a
 * `ConfigurationError` naming `ARBITER_AUDIT_KEY` and how long it must be.
 *
 * @example
 * const key = checkAuditKey(process.env.ARBITER_AUDIT_KEY); // throws on 'abc'
 */
export function checkAuditKey(key: string | undefined): string {
  if (key === undefined || key === '') {
    throw new ConfigurationError({
      setting: 'ARBITER_AUDIT_KEY',
      message:
        'set ARBITER_AUDIT_KEY: an anchor is signed with it (32 characters or more, e.g. `openssl rand -hex 24`)',
    });
  }
  if (key.length < minimumAuditKeyLength) {
    throw new ConfigurationError({
      setting: 'ARBITER_AUDIT_KEY',
      message: `ARBITER_AUDIT_KEY is ${key.length} characters: an anchor is signed only with a key of ${minimumAuditKeyLength} characters or more (e.g. \`openssl rand -hex 24\`)`,
    });
  }
  return key;
}
