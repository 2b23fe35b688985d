/**
 * True for a promise or any other object with a `then` method: what `await`
 * would wait for. Lets a hot path skip the microtask an `await` of a plain
 * value costs, while still waiting for every thenable a caller may return.
 *
 * @example
 * const result = tool.execute(args, context);
 * const data = isThenable(result) ? await result : result;
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
