/**
 * Streams a model's text as it comes, up to the first marker that may open a
 * tool call (`<tool_call>`, a code fence, a JSON object): from there on the
 * text is a call, read whole at the end, never shown as prose. The last few
 * characters wait until the next chunk shows they do not start a marker.
 *
 * @example
 * const streamer = createTextStreamer({ markers: ['<tool_call>'], onText: (text) => process.stdout.write(text) });
 * streamer.push('Let me look. <tool_'); streamer.push('call>{…}'); streamer.end(); // writes "Let me look. "
 */
export function createTextStreamer({
  markers,
  onText,
}: {
  markers: readonly string[];
  onText?: (text: string) => void;
}): { push: (chunk: string) => void; end: () => void } {
  const usable = markers.filter((marker) => marker !== '');
  const holdBack = Math.max(0, ...usable.map((marker) => marker.length - 1));
  let pending = '';
  let stopped = false;
  const emit = (text: string): void => {
    if (text !== '') onText?.(text);
  };
  return {
    push(chunk: string): void {
      if (stopped) return;
      pending += chunk;
      const at = Math.min(...usable.map((marker) => pending.indexOf(marker)).filter((index) => index >= 0));
      if (Number.isFinite(at)) {
        emit(pending.slice(0, at));
        pending = '';
        stopped = true;
        return;
      }
      const safe = Math.max(0, pending.length - holdBack);
      emit(pending.slice(0, safe));
      pending = pending.slice(safe);
    },
    end(): void {
      if (!stopped) emit(pending);
      pending = '';
      stopped = true;
    },
  };
}
