import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';
import { isBacktrackingSafe } from './is-backtracking-safe.js';

/**
 * The regular-expression engine ajv compiles `pattern` and
 * `patternProperties` with: re2js, a pure-JavaScript port of RE2 that
 * matches in time linear in the input. Tool schemas come from third parties
 * (MCP servers), and a backtracking `RegExp` lets one pattern such as
 * `^(a+)+$` freeze the process on a 30-character argument.
 *
 * Why re2js (measured on Node 20, 2 cores): it installs from the registry
 * with no install script, native build or binary download; `^(a+)+$` against
 * 10,001 characters takes ~0.3 ms (re2-wasm ~1 ms, native `RegExp` never
 * returns); typical patterns cost 0.3–0.6 µs per test (native ~0.03 µs,
 * re2-wasm ~2 µs) and 0.5–3 ms to compile. The native `re2` package
 * downloads a prebuilt binary from GitHub at install time and otherwise
 * compiles RE2 with node-gyp, which our machines cannot rely on.
 *
 * Patterns that a backtracking engine provably matches in linear time
 * (`isBacktrackingSafe`: anchored, no alternation, no quantified group, at
 * most one varying quantifier, e.g. `^SO\d{8}$`) run as native `RegExp`s
 * after RE2 has compiled them too, so the engines agree on what is accepted
 * and the common case keeps native speed.
 *
 * RE2 has no lookaround and no backreferences: such a pattern throws here,
 * and registration refuses the tool (see `findUnsupportedPattern`). Other
 * differences from JavaScript's `u` mode are minor: `.` also matches `\r`,
 * U+2028 and U+2029, and `\b`/`\w`/`\d`/`\s` are ASCII in both.
 *
 * @example
 * const ajv = new Ajv2020({ code: { regExp: linearRegExp } });
 * linearRegExp('^(a+)+$', 'u').test('a'.repeat(10_000) + 'b'); // false, in about a millisecond
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    if (isBacktrackingSafe(pattern)) {
      try {
        return new RegExp(pattern, flags);
      } catch {
        // Not valid JavaScript syntax in this mode: RE2 compiled it, RE2 matches it.
      }
    }
    // ajv caches compiled patterns under `toString()`: it must tell patterns apart.
    const engine: RegExpLike & { toString(): string } = {
      test: (text: string) => compiled.test(text),
      toString: () => `/${pattern}/${flags}`,
    };
    return engine;
  },
  { code: 'require("re2js").RE2JS' },
);
