import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shownStoreUrl } from './shown-store-url.js';

describe('shownStoreUrl', () => {
  it.each([
    ['postgres://app:secret@db/arbiter', 'postgres://app:***@db/arbiter'],
    ['postgres://app@db:5432/arbiter', 'postgres://app@db:5432/arbiter'],
    ['postgres://db/arbiter', 'postgres://db/arbiter'],
    // A password in the query, under any name a driver reads one from, or one spelled otherwise.
    ['postgres://u@h/db?password=SECRET', 'postgres://u@h/db?password=***'],
    ['postgres://u@h/db?sslpassword=SECRET&sslmode=require', 'postgres://u@h/db?sslpassword=***&sslmode=require'],
    ['postgres://u@h/db?passfile=/home/u/.pgpass', 'postgres://u@h/db?passfile=***'],
    ['postgres://u@h/db?options=-c%20password%3DSECRET', 'postgres://u@h/db?options=***'],
    ['postgres://u@h/db?PASSWORD=SECRET', 'postgres://u@h/db?***'],
    ['postgres://u@h/db?pass%77ord=SECRET', 'postgres://u@h/db?***'],
    ['postgres://u@h/db?sslmode=require&token=SECRET', 'postgres://u@h/db?sslmode=require&***'],
    ['postgres://u@h/db?password=SEC&RET', 'postgres://u@h/db?password=***&***'],
    // Raw `@`, `#`, `/`, `?`, `:` in a password, and the same percent-encoded.
    ['postgres://u:p@ss@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:a#SECRET@h:5432/db', 'postgres://u:***@h:5432/db'],
    ['postgres://u:a/SECRET@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:a?SECRET@h/db', 'postgres://u:***@***'],
    ['postgres://u:a:SECRET@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:%40SECRET%23@h/db', 'postgres://u:***@h/db'],
    // An `@` in the query: what follows it may be a password's end.
    ['postgres://u@h/db?password=SEC@RET', 'postgres://***@***'],
    ['postgres://u:pw@h/db?password=SEC@RET', 'postgres://u:***@***'],
    ['postgres://u@h/db?password=SEC#x@RET', 'postgres://***@***'],
    // A fragment (a `#` in a query password) is masked; one with an `@` reads as userinfo, masked.
    ['postgres://u@h/db?password=SEC#RET', 'postgres://u@h/db?password=***#***'],
    ['postgres://u@h/db#frag@host', 'postgres://***@host'],
    // A port that is not a number (a password where the port goes); an unparseable port is shown.
    ['postgres://u@h:SECRET/db', 'postgres://u@h:***/db'],
    ['postgres://u:SECRET@h:99999/db', 'postgres://u:***@h:99999/db'],
    // IPv6 and several hosts.
    ['postgres://u:SECRET@[::1]:5432/db', 'postgres://u:***@[::1]:5432/db'],
    ['postgres://u:SECRET@[fe80::1%25eth0]/db', 'postgres://u:***@[fe80::1%25eth0]/db'],
    ['postgres://u:SECRET@h1:5432,h2:5433/db', 'postgres://u:***@h1:5432,h2:5433/db'],
    // A scheme arbiter refuses is masked the same way.
    ['postgresql+psycopg://u:SECRET@h/db', 'postgresql+psycopg://u:***@h/db'],
    // Not a URL at all (a bare password, a key=value string): nothing of it.
    ['host=h password=SECRET', '***'],
    ['SECRET', '***'],
    ['postgres:/u:SECRET@h', '***'],
    // One line, whatever it holds.
    ['postgres://u@h/db\nlisten on 0.0.0.0', 'postgres://u@h/db\\u000alisten on 0.0.0.0'],
  ])('shows %j as %j', (value, shown) => {
    expect(shownStoreUrl(value)).toBe(shown);
  });

  /**
   * Secrets are written in capitals and punctuation (raw or percent-encoded); nothing else in these URLs is: a
   * capital shown is a leak. A `#` or `@` in a query secret makes a fragment or a second `@` of its tail.
   */
  const secret = fc
    .stringMatching(/^[A-Z@#/?:&=% +!$;,[\]'"]{1,24}$/)
    .filter((text) => /[A-Z]/.test(text))
    .chain((text) =>
      fc.constantFrom(
        text,
        encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
      ),
    );
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
  const host = fc.oneof(
    name,
    fc.constantFrom('127.0.0.1', '[::1]', '[fe80::1%25eth0]', '[2001:db8::7]', 'h1:5432,h2:5433', 'db.internal'),
  );
  const harmless = fc.constantFrom('', 'sslmode=require', 'application_name=arbiter', 'connect_timeout=5');
  const secretKey = fc.constantFrom('password', 'sslpassword', 'passfile', 'options', 'pass%77ord', 'secret');

  it('shows no character of a password, wherever a URL carries it', () => {
    fc.assert(
      fc.property(
        fc.record({
          scheme: fc.constantFrom('postgres', 'postgresql', 'postgresql+psycopg', 'mysql'),
          user: fc.option(name, { nil: undefined }),
          password: fc.option(secret, { nil: undefined }),
          host,
          port: fc.option(fc.integer({ min: 0, max: 99_999 }), { nil: undefined }),
          database: fc.option(name, { nil: undefined }),
          query: fc.array(
            fc.oneof(
              harmless,
              fc.tuple(secretKey, secret).map(([key, value]) => `${key}=${value}`),
            ),
            { maxLength: 3 },
          ),
          fragment: fc.option(name, { nil: undefined }),
        }),
        (parts) => {
          const userinfo =
            parts.user === undefined && parts.password === undefined
              ? ''
              : `${parts.user ?? ''}${parts.password === undefined ? '' : `:${parts.password}`}@`;
          const url = [
            `${parts.scheme}://${userinfo}${parts.host}`,
            parts.port === undefined ? '' : `:${parts.port}`,
            parts.database === undefined ? '' : `/${parts.database}`,
            parts.query.length === 0 ? '' : `?${parts.query.join('&')}`,
            parts.fragment === undefined ? '' : `#${parts.fragment}`,
          ].join('');
          const shown = shownStoreUrl(url);
          expect(shown, url).not.toMatch(/[A-Z]/);
          expect(shown).not.toMatch(/[\n\r]/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws and answers one line, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => {
        const shown = shownStoreUrl(text);
        expect(shown).not.toMatch(/[\n\r\u2028\u2029]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('shows the whole of a text without a scheme as ***, and keeps no password a keyword string holds', () => {
    fc.assert(
      fc.property(secret, (password) => {
        expect(shownStoreUrl(`host=db user=app password=${password}`)).toBe('***');
      }),
    );
  });
});
