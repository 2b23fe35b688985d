/**
 * Query parameters whose values are shown: a connection's shape (where, how, which database), never a
 * credential. The value of every other parameter is masked, and so is its name unless it is one of
 * `maskedParameters` (a name spelled in capitals or percent-encoded, one a driver learns next year, or
 * the words after a raw `&` in a password).
 */
const shownParameters: ReadonlySet<string> = new Set([
  'host',
  'hostaddr',
  'port',
  'dbname',
  'user',
  'application_name',
  'fallback_application_name',
  'client_encoding',
  'connect_timeout',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'target_session_attrs',
  'load_balance_hosts',
  'ssl',
  'sslmode',
  'sslnegotiation',
  'sslcert',
  'sslkey',
  'sslrootcert',
  'sslcrl',
  'uselibpqcompat',
]);

/** Parameters shown by name, their values masked: where a connection string carries a secret or a file of them. */
const maskedParameters: ReadonlySet<string> = new Set(['password', 'sslpassword', 'passfile', 'options']);

const masked = '***';

/**
 * A store's connection string as a person may read it in an error, a log
 * line or `serve`'s "listening on" line: scheme, user name, hosts, ports,
 * database and the connection's harmless settings, nothing that can carry a
 * password. Everything between `//` and the last `@` but the user name is
 * masked (so a raw `@`, `#`, `/` or `?` in a password hides with the rest), a
 * user name that is not plainly one is masked whole, every query value not
 * known to be harmless is masked, and so is a fragment and a port that is not
 * a number; when a `?` comes before the last `@` (a password holding one,
 * or an `@` inside a query value), all after that `@` is masked too. A value that is not `scheme://…` at all (a bare password, a
 * `key=value` string) is not shown: `***`. Control characters are escaped,
 * so the result is one line. Works on any text: it never throws.
 *
 * @example
 * shownStoreUrl('postgres://app:secret@db/arbiter'); // 'postgres://app:***@db/arbiter'
 * shownStoreUrl('postgres://app@db/arbiter?password=secret&sslmode=require'); // 'postgres://app@db/arbiter?password=***&sslmode=require'
 * shownStoreUrl('postgres://app:p@ss#1@db/arbiter'); // 'postgres://app:***@db/arbiter'
 */
export function shownStoreUrl(value: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value);
  if (scheme === null) return masked;
  const rest = value.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  const userinfo = at === -1 ? undefined : rest.slice(0, at);
  const afterUser = at === -1 ? rest : rest.slice(at + 1);
  // A `?` before the last `@`: either the password holds it, or that `@` is in the query (a password there,
  // `?password=a@b`); what follows it is masked under both readings. (After a `#` and no `?`, it is in a
  // fragment, which no driver reads: there it is a host, as the password's `#` most likely means.)
  if (userinfo?.includes('?')) {
    return escapeControlCharacters(`${scheme[1]}://${shownUserinfo(userinfo)}@${masked}`);
  }
  const authorityEnd = firstIndexOf(afterUser, ['/', '?', '#']);
  const authority = afterUser.slice(0, authorityEnd);
  const afterAuthority = afterUser.slice(authorityEnd);
  const fragmentStart = firstIndexOf(afterAuthority, ['#']);
  const beforeFragment = afterAuthority.slice(0, fragmentStart);
  const queryStart = firstIndexOf(beforeFragment, ['?']);
  const path = beforeFragment.slice(0, queryStart);
  const query = beforeFragment.slice(queryStart);
  const shown = [
    `${scheme[1]}://`,
    userinfo === undefined ? '' : `${shownUserinfo(userinfo)}@`,
    shownAuthority(authority),
    path,
    query === '' ? '' : `?${shownQuery(query.slice(1))}`,
    fragmentStart === afterAuthority.length ? '' : `#${masked}`,
  ].join('');
  return escapeControlCharacters(shown);
}

/** `user:***`, `user`, or `***` when what stands before the first `:` is not plainly a user name. */
function shownUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  const user = colon === -1 ? userinfo : userinfo.slice(0, colon);
  // A `/`, `?` or `#` in it: the `@` was not the user's (a raw one in a password or in the query).
  if (/[/?#]/.test(user)) return masked;
  return colon === -1 ? user : `${user}:${masked}`;
}

/** Hosts and ports (`h1:5432,[::1]:5433`); a port that is not a number is masked. */
function shownAuthority(authority: string): string {
  return authority
    .split(',')
    .map((entry) => {
      const hostEnd = entry.startsWith('[') ? entry.indexOf(']') + 1 || entry.length : entry.indexOf(':');
      if (hostEnd === -1 || hostEnd === entry.length) return entry;
      const host = entry.slice(0, hostEnd);
      const port = entry.slice(hostEnd);
      return /^:\d*$/.test(port) ? entry : `${host}:${masked}`;
    })
    .join(',');
}

/** `key=value` pairs: those of `shownParameters` as written, `maskedParameters` as `key=***`, any other `***`. */
function shownQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const key = equals === -1 ? pair : pair.slice(0, equals);
      if (shownParameters.has(key)) return pair;
      if (maskedParameters.has(key) && equals !== -1) return `${key}=${masked}`;
      return pair === '' ? '' : masked;
    })
    .join('&');
}

function firstIndexOf(text: string, characters: readonly string[]): number {
  const found = characters.map((character) => text.indexOf(character)).filter((index) => index !== -1);
  return found.length === 0 ? text.length : Math.min(...found);
}

function escapeControlCharacters(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (character) => {
    return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
