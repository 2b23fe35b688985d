import type { Answer, SqlMode } from './sql-port.js';

/**
 * What a port's answers go on with, whichever port gave them: at once for
 * a value, after it settles for a promise, so a synchronous port stays
 * synchronous. (Not named `then`: a module that exports `then` is a
 * thenable to whoever awaits its namespace, and vitest's module runner
 * does, so importing it fails with the module runner's own `resolve`.)
 *
 * @module
 */

/**
 * Goes on with what an answer holds: at once for a value, after it settles for a promise.
 *
 * @example
 * return mapAnswer(port.run(rows(selectClaim, [key])), ([row]) => row);
 */
export function mapAnswer<Mode extends SqlMode, Value, Result>(
  answer: Answer<Mode, Value>,
  next: (value: Value) => Result,
): Answer<Mode, Result> {
  if (answer instanceof Promise) return answer.then(next) as Answer<Mode, Result>;
  return next(answer as Value) as Answer<Mode, Result>;
}

/**
 * `mapAnswer` for a next step that answers as the port does itself: one answer, not an answer of an answer.
 *
 * @example
 * return chainAnswer(port.run(readCutoff()), (cutoff) => port.run(purgeBelow(cutoff)));
 */
export function chainAnswer<Mode extends SqlMode, Value, Result>(
  answer: Answer<Mode, Value>,
  next: (value: Value) => Answer<Mode, Result>,
): Answer<Mode, Result> {
  // A promise's `then` flattens the promise `next` returns; a value's is `next`'s answer as it is.
  return mapAnswer<Mode, Value, Answer<Mode, Result>>(answer, next) as unknown as Answer<Mode, Result>;
}

/**
 * `attempt`'s answer, or `fallback`'s when it throws (at once) or rejects (a promise).
 *
 * @example
 * return recoverAnswer(() => port.run(readOrigin()), (error) => { if (isMissingTable(error)) return undefined; throw error; });
 */
export function recoverAnswer<Mode extends SqlMode, Result>(
  attempt: () => Answer<Mode, Result>,
  fallback: (error: unknown) => Result,
): Answer<Mode, Result> {
  try {
    const answer = attempt();
    return (answer instanceof Promise ? answer.catch(fallback) : answer) as Answer<Mode, Result>;
  } catch (error) {
    return fallback(error) as Answer<Mode, Result>;
  }
}
