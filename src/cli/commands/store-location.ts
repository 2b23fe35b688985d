import { join } from 'node:path';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { shownStoreUrl } from './shown-store-url.js';

export { shownStoreUrl } from './shown-store-url.js';

/**
 * Where an operational command finds arbiter's data: a PostgreSQL store
 * (`--store URL`, else `ARBITER_STORE_URL`) or the SQLite file in
 * `--data-dir` (`arbiter.db`). `source` names what chose it, for messages.
 */
export type StoreLocation =
  | { readonly dialect: 'postgres'; readonly url: string; readonly source: '--store' | 'ARBITER_STORE_URL' }
  | { readonly dialect: 'sqlite'; readonly path: string; readonly dataDirectory: string };

/** The `parseArgs` options every operational command takes to find its store. */
export const storeOptions = {
  'data-dir': { type: 'string', default: '.arbiter' },
  store: { type: 'string' },
} as const;

/** How long an operational command waits for PostgreSQL before it says why it cannot reach it. */
export const storeConnectTimeoutMs = 4_000;

/**
 * The store a command's flags and environment name: `--store` wins over
 * `ARBITER_STORE_URL`, either over `--data-dir`. A value that is not a
 * PostgreSQL connection string is a `ConfigurationError` naming where it came from.
 *
 * @example
 * storeLocation({ values: { 'data-dir': '.arbiter', store: undefined }, environment: process.env });
 */
export function storeLocation({
  values,
  environment,
}: {
  values: { readonly 'data-dir': string; readonly store?: string | undefined };
  environment: Readonly<Record<string, string | undefined>>;
}): StoreLocation {
  if (values.store !== undefined)
    return { dialect: 'postgres', url: checkStoreUrl(values.store, '--store'), source: '--store' };
  const fromEnvironment = environment['ARBITER_STORE_URL'];
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return {
      dialect: 'postgres',
      url: checkStoreUrl(fromEnvironment, 'ARBITER_STORE_URL'),
      source: 'ARBITER_STORE_URL',
    };
  }
  const dataDirectory = values['data-dir'];
  return { dialect: 'sqlite', path: join(dataDirectory, 'arbiter.db'), dataDirectory };
}

/** What a person reads as the store's name: the file, or the connection string without its password. */
export function describeStoreLocation(location: StoreLocation): string {
  return location.dialect === 'sqlite' ? location.path : shownStoreUrl(location.url);
}

/**
 * `value` when it is a PostgreSQL connection string, else a `ConfigurationError` naming `source` (one line,
 * the value shown without anything that may be a password: `shownStoreUrl`).
 *
 * @example
 * checkStoreUrl(flags.store, '--store');
 */
export function checkStoreUrl(value: string, source: string): string {
  if (/^postgres(ql)?:\/\/./.test(value)) return value;
  const shown = shownStoreUrl(value);
  throw new ConfigurationError({
    setting: source,
    message: `${source} must be a PostgreSQL connection string (postgres://user@host:5432/database), got ${
      shown === '***' ? 'a value that is not a URL (not shown: it may hold a password)' : `"${shown}"`
    }`,
  });
}

/**
 * One line for a PostgreSQL store that cannot be opened, naming the flag or
 * variable that chose it and why (refused, unknown host, wrong password,
 * no such database, timed out), as a `ConfigurationError`; any other
 * error is returned as it is.
 *
 * @example
 * throw storeFailure({ error, location });
 */
export function storeFailure({ error, location }: { error: unknown; location: StoreLocation }): unknown {
  if (location.dialect !== 'postgres') return error;
  const reason = unreachableReason(error);
  if (reason === undefined) return error;
  return new ConfigurationError({
    setting: location.source,
    message: `cannot open the store ${shownStoreUrl(location.url)} named by ${location.source}: ${reason}`,
    cause: error,
  });
}

function unreachableReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = 'code' in error ? String(error.code) : '';
  // pg parses the string with WHATWG URL rules; the input is never repeated (it holds the password).
  if (code === 'ERR_INVALID_URL' || error instanceof URIError) {
    return 'not a valid URL (in the user name or password, write # / ? @ : % as %23 %2F %3F %40 %3A %25; a port is a number up to 65535)';
  }
  // sslcert, sslkey or sslrootcert naming a file that cannot be read: pg reads them as it parses the string.
  if ((code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') && 'path' in error) {
    return `cannot read ${String(error.path)}, which its sslcert, sslkey or sslrootcert names (${code})`;
  }
  const errors = error instanceof AggregateError ? error.errors : [];
  const codes = new Set([
    code,
    ...errors.map((each: unknown) => (each instanceof Error && 'code' in each ? String(each.code) : '')),
  ]);
  if (codes.has('ECONNREFUSED')) return 'connection refused (is PostgreSQL running on that host and port?)';
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN')) return 'unknown host';
  if (codes.has('ETIMEDOUT') || /timeout|timed out/i.test(error.message)) {
    return `no answer within ${storeConnectTimeoutMs / 1000} s`;
  }
  if (code === '28P01') return 'wrong password';
  if (code === '28000') return `not allowed to connect (${firstLine(error.message)})`;
  if (code === '3D000') return `no such database (${firstLine(error.message)})`;
  if (code === '42501') return `permission denied (${firstLine(error.message)})`;
  if (code === '08001' || code === '08006' || code === '57P03' || codes.has('ECONNRESET')) {
    return `the server closed the connection (${firstLine(error.message)})`;
  }
  if (/password|SASL|authentication/i.test(error.message)) return firstLine(error.message);
  return undefined;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
