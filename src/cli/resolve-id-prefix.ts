import { AmbiguousIdError } from '../errors/ambiguous-id-error.js';

/**
 * The one id of `candidates` that `given` is, or begins: the id itself when
 * it is a candidate, the only candidate starting with it (case ignored), or
 * `given` unchanged when none does (the command then says it is not
 * there). Ids are time-ordered, so ids made in the same minute share their
 * first characters: a prefix that several start with throws an
 * `AmbiguousIdError` naming them.
 *
 * @example
 * const sessionId = resolveIdPrefix({ given: '01a24c56-7b', kind: 'session', candidates: ids });
 */
export function resolveIdPrefix({
  given,
  kind,
  candidates,
}: {
  given: string;
  /** What the id names, for the error: `session`, `run`. */
  kind: string;
  candidates: Iterable<string>;
}): string {
  const wanted = given.toLowerCase();
  const matches = new Set<string>();
  for (const candidate of candidates) {
    if (candidate === given) return candidate;
    if (wanted !== '' && candidate.toLowerCase().startsWith(wanted)) matches.add(candidate);
  }
  const [only, ...others] = [...matches].sort();
  if (only === undefined) return given;
  if (others.length === 0) return only;
  throw new AmbiguousIdError({ kind, prefix: given, candidates: [only, ...others] });
}
