/**
 * Reads a model's streamed answer to its end: each item through `push`
 * (which returns the text it added, '' for none) and that text to
 * `onTextDelta`, every wait bounded by `guard`, the idle timer refreshed on
 * each item. Items already buffered when `stopped` aborted are not
 * forwarded; leaving early (a bad item, a throwing `onTextDelta`, an abort)
 * closes the stream, so the HTTP response stops too.
 *
 * @example
 * await readModelStream({ items: stream[Symbol.asyncIterator](), push: (chunk) => assembler.push(chunk), guard, idleTimer, stopped, onTextDelta });
 */
export async function readModelStream({
  items,
  push,
  guard,
  idleTimer,
  stopped,
  onTextDelta,
}: {
  items: AsyncIterator<unknown>;
  push: (item: unknown) => string;
  guard: <T>(operation: Promise<T>) => Promise<T>;
  idleTimer: NodeJS.Timeout;
  stopped: AbortSignal;
  onTextDelta: ((text: string) => void) | undefined;
}): Promise<void> {
  let finished = false;
  try {
    for (;;) {
      const next = await guard(items.next());
      idleTimer.refresh();
      if (next.done === true) {
        finished = true;
        return;
      }
      if (stopped.aborted) return;
      const text = push(next.value);
      if (text !== '') onTextDelta?.(text);
    }
  } finally {
    if (!finished) await items.return?.().catch(() => undefined);
  }
}
