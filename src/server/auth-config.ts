import { readFile } from 'node:fs/promises';
import type { Principal } from '../core/principal.js';
import { InputFileError } from '../errors/input-file-error.js';
import { ServerConfigError } from '../errors/server-config-error.js';
import { isRecord } from '../util/is-record.js';
import { jsonSyntaxProblem } from '../util/json-syntax-position.js';
import { sha256Hex } from '../util/sha256.js';

/**
 * The shortest bearer token the server accepts (as `token`; a
 * `tokenSha256` cannot be measured). 32 characters of `openssl rand -hex
 * 24` are 192 bits: out of reach of guessing over HTTP.
 */
export const minimumTokenLength = 32;

/**
 * One bearer token and the principal it stands for. Give the token as is
 * (`token`) or, to keep it out of the file, as the hex sha256 of it
 * (`tokenSha256`).
 */
export interface AuthEntry {
  readonly token?: string;
  readonly tokenSha256?: string;
  readonly tenantId: string;
  readonly userId: string;
  /** `approver` may decide approvals of its tenant; `metrics` may read its tenant's `/metrics`. */
  readonly roles: readonly string[];
}

/**
 * The `--auth FILE` format:
 *
 * ```json
 * { "tokens": [
 *   { "token": "3f1c9a…(at least 32 characters)", "tenantId": "shop", "userId": "C1001", "roles": ["customer"] },
 *   { "tokenSha256": "9f86d08…", "tenantId": "shop", "userId": "S9001", "roles": ["approver"] },
 *   { "tokenSha256": "51a0e2…", "tenantId": "shop", "userId": "prometheus", "roles": ["metrics"] }
 * ] }
 * ```
 *
 * A `token` shorter than `minimumTokenLength` (32) is refused. Roles:
 * `approver` decides approvals of its tenant (never in its own sessions,
 * see `allowSelfApproval`), `metrics` reads `/metrics` of its tenant.
 */
export interface AuthConfig {
  readonly tokens: readonly AuthEntry[];
}

/**
 * The demo's tokens. They are public (they are in this file), so a server
 * using them listens on loopback only and answers only loopback `Host`
 * names; see `startServer`.
 */
export const demoTokens = {
  customer: 'demo-customer-token-this-machine-only',
  approver: 'demo-approver-token-this-machine-only',
} as const;

/**
 * The configuration used without `--auth`: customer C1001 of tenant `shop`
 * (the shop example's first customer) and staff member S9001 of the same
 * tenant with the `approver` role.
 *
 * @example
 * const authenticate = createAuthenticator(demoAuthConfig);
 * authenticate(`Bearer ${demoTokens.customer}`)?.userId; // 'C1001'
 */
export const demoAuthConfig: AuthConfig = {
  tokens: [
    { token: demoTokens.customer, tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
    { token: demoTokens.approver, tenantId: 'shop', userId: 'S9001', roles: ['approver'] },
  ],
};

/**
 * Reads and checks an auth file; an unreadable or malformed one is an
 * `InputFileError` naming the file and the entry.
 *
 * @example
 * const config = await readAuthConfig({ file: 'auth.json' });
 */
export async function readAuthConfig({ file }: { file: string }): Promise<AuthConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputFileError({ file, problem: `cannot be read`, cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the fault, which may be a token: only the place and one character are said.
    throw new InputFileError({ file, ...jsonSyntaxProblem(text), cause: error });
  }
  return parseAuthConfig(value, { file });
}

/**
 * Checks an auth configuration already parsed from JSON.
 *
 * @example
 * parseAuthConfig({ tokens: [{ token: 'c2b6f0a4d9e1…32 characters or more', tenantId: 'shop', userId: 'u1', roles: [] }] });
 */
export function parseAuthConfig(value: unknown, { file = 'auth config' }: { file?: string } = {}): AuthConfig {
  const fail = (message: string): never => {
    throw new InputFileError({ file, problem: message });
  };
  if (!isRecord(value) || !Array.isArray(value.tokens)) return fail('expected an object with a "tokens" array');
  const tokens = value.tokens.map((entry: unknown, index): AuthEntry => {
    const where = `tokens[${index}]`;
    if (!isRecord(entry)) return fail(`${where} must be an object`);
    const { token, tokenSha256, tenantId, userId, roles } = entry;
    if ((token === undefined) === (tokenSha256 === undefined)) return fail(`${where} needs "token" or "tokenSha256"`);
    if (token !== undefined && typeof token !== 'string') return fail(`${where}.token must be a string`);
    if (typeof token === 'string') {
      const weakness = tokenWeakness(token);
      if (weakness !== undefined) return fail(`${where}${entryOwner(entry)}: ${weakness}`);
    }
    if (tokenSha256 !== undefined && (typeof tokenSha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(tokenSha256))) {
      return fail(`${where}.tokenSha256 must be 64 hex digits`);
    }
    const hash = typeof token === 'string' ? sha256Hex(token) : String(tokenSha256).toLowerCase();
    if (publicTokenHashes.has(hash)) return fail(`${where}${entryOwner(entry)}: ${publicTokenRefusal}`);
    if (typeof tenantId !== 'string' || tenantId === '') return fail(`${where}.tenantId must be a non-empty string`);
    if (typeof userId !== 'string' || userId === '') return fail(`${where}.userId must be a non-empty string`);
    if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string')) {
      return fail(`${where}.roles must be an array of strings`);
    }
    return {
      ...(typeof token === 'string' ? { token } : {}),
      ...(typeof tokenSha256 === 'string' ? { tokenSha256: tokenSha256.toLowerCase() } : {}),
      tenantId,
      userId,
      roles: roles as string[],
    };
  });
  return { tokens };
}

/**
 * Maps an `Authorization: Bearer …` header to its principal, or `undefined`.
 * Tokens are compared by their sha256, so lookup time does not depend on
 * how much of a guess was right. A configuration built in code gets the
 * file's rules too: a `token` shorter than `minimumTokenLength`, or one of
 * the public demo tokens outside demo mode, is a `ServerConfigError` naming
 * the entry (never the token).
 *
 * @example
 * const authenticate = createAuthenticator(config);
 * const principal = authenticate(request.headers.get('authorization') ?? undefined);
 */
export function createAuthenticator(
  config: AuthConfig,
  {
    demo = false,
  }: {
    /** The server's demo mode (loopback only, loopback `Host`s only): the one place the public demo tokens are accepted. */
    demo?: boolean;
  } = {},
): (authorization: string | undefined) => Principal | undefined {
  const byHash = new Map<string, Principal>();
  config.tokens.forEach((entry, index) => {
    const hash = entry.tokenSha256?.toLowerCase() ?? sha256Hex(entry.token ?? '');
    const weakness =
      !demo && publicTokenHashes.has(hash)
        ? publicTokenRefusal
        : entry.token === undefined
          ? undefined
          : tokenWeakness(entry.token);
    if (weakness !== undefined) {
      throw new ServerConfigError({
        setting: 'auth',
        message: `auth tokens[${index}]${entryOwner(entry)}: ${weakness}`,
      });
    }
    byHash.set(hash, { tenantId: entry.tenantId, userId: entry.userId, roles: [...entry.roles] });
  });
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match?.[1] === undefined ? undefined : byHash.get(sha256Hex(match[1]));
  };
}

/** The demo tokens are in the source and printed by `arbiter serve`: as real credentials they open the server to anyone. */
const publicTokenHashes: ReadonlySet<string> = new Set(Object.values(demoTokens).map((token) => sha256Hex(token)));

const publicTokenRefusal =
  'token is one of the public demo tokens (they are in the source and printed by arbiter serve); ' +
  'give a secret one (e.g. `openssl rand -hex 24`), or serve without --auth to use the demo on this machine only';

/** Why a token is too weak to accept, without quoting it; `undefined` when it is fine. */
function tokenWeakness(token: string): string | undefined {
  if (token.length >= minimumTokenLength) return undefined;
  return (
    `token is ${token.length} characters; bearer tokens need at least ${minimumTokenLength} ` +
    '(e.g. `openssl rand -hex 24`), or give its sha256 as "tokenSha256"'
  );
}

/** ` (tenant shop, user C1001)`, from what the entry says, for an error that must not quote the token. */
function entryOwner(entry: Record<string, unknown> | AuthEntry): string {
  const { tenantId, userId } = entry;
  return typeof tenantId === 'string' && typeof userId === 'string' ? ` (tenant ${tenantId}, user ${userId})` : '';
}
