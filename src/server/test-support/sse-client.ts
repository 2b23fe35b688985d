import type { ExternalEvent } from '../../events/external-event.js';

/** What one SSE connection delivered before the server closed it. */
export interface SseReading {
  readonly status: number;
  readonly events: ExternalEvent[];
  /** `id:` fields, in order, as sent. */
  readonly ids: string[];
  readonly comments: string[];
}

/**
 * Reads an SSE response to its end (or until `stopAfter` returns true for an
 * event, then aborts), parsing `id:`, `data:` and comment lines.
 *
 * @example
 * const { events } = await readSse({ url: `${base}/v1/runs/${runId}/events`, token });
 */
export async function readSse({
  url,
  token,
  lastEventId,
  stopAfter,
  timeoutMs = 15_000,
}: {
  url: string;
  token: string;
  lastEventId?: number;
  stopAfter?: (event: ExternalEvent) => boolean;
  timeoutMs?: number;
}): Promise<SseReading> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`SSE read timed out after ${timeoutMs} ms`)), timeoutMs);
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  const reading: SseReading = { status: 0, events: [], ids: [], comments: [] };
  try {
    const response = await fetch(url, { headers, signal: controller.signal });
    const result = { ...reading, status: response.status };
    if (response.body === null || !response.ok) return result;
    const decoder = new TextDecoder();
    let buffer = '';
    let id: string | undefined;
    let data: string[] = [];
    const reader = response.body.getReader();
    for (;;) {
      const chunk = await reader.read().catch((error: unknown) => {
        if (controller.signal.aborted && stopAfter !== undefined) return { done: true as const, value: undefined };
        throw error;
      });
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let newline = buffer.indexOf('\n');
      let stop = false;
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line === '') {
          if (data.length > 0) {
            const event = JSON.parse(data.join('\n')) as ExternalEvent;
            result.events.push(event);
            if (id !== undefined) result.ids.push(id);
            if (stopAfter?.(event) === true) stop = true;
          }
          id = undefined;
          data = [];
        } else if (line.startsWith(':')) {
          result.comments.push(line.slice(1).trim());
        } else if (line.startsWith('id:')) {
          id = line.slice(3).trim();
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
        }
      }
      if (stop) {
        controller.abort();
        break;
      }
    }
    return result;
  } finally {
    clearTimeout(timer);
  }
}
