import type { ExternalEvent } from '../events/external-event.js';

/**
 * The SSE frames already written, by event: the manager hands the same
 * event object to every connection following the run, so the second
 * follower of a live event (another tab, an approver watching) writes the
 * bytes the first one encoded instead of encoding them again. Replayed
 * events are read from the log as new objects and encoded on their own; a
 * frame lives as long as its event does.
 */
const frames = new WeakMap<ExternalEvent, string>();

/**
 * One event as arbiter's SSE frame, `id: SEQ` and `data: JSON`, encoded
 * once per event object however many streams write it. Events are not
 * changed once published, so a frame never goes stale.
 *
 * @example
 * runEventFrame({ type: 'run:start', runId, seq: 1, at }); // 'id: 1\ndata: {"type":"run:start",…}\n\n'
 */
export function runEventFrame(event: ExternalEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = encodeRunEventFrame(event);
    frames.set(event, frame);
  }
  return frame;
}

/**
 * One event as arbiter's SSE frame, encoded anew on every call.
 *
 * @example
 * encodeRunEventFrame({ type: 'run:start', runId, seq: 1, at }); // 'id: 1\ndata: {"type":"run:start",…}\n\n'
 */
export function encodeRunEventFrame(event: ExternalEvent): string {
  return `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
}
