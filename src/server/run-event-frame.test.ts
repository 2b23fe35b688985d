import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExternalEvent } from '../events/external-event.js';
import { encodeRunEventFrame, runEventFrame } from './run-event-frame.js';

const event = (): ExternalEvent =>
  ({
    type: 'model:delta',
    runId: 'run-1',
    seq: 7,
    at: 1_700_000_000_000,
    step: 1,
    text: 'Your order',
  }) as ExternalEvent;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('runEventFrame', () => {
  it('writes `id: seq` and the event as `data:` JSON, as encodeRunEventFrame does', () => {
    const published = event();
    expect(runEventFrame(published)).toBe(`id: 7\ndata: ${JSON.stringify(published)}\n\n`);
    expect(runEventFrame(published)).toBe(encodeRunEventFrame(published));
  });

  it('encodes one event object once however many streams write it, and an equal new object anew', () => {
    const published = event();
    const stringify = vi.spyOn(JSON, 'stringify');
    const first = runEventFrame(published);
    for (let follower = 0; follower < 5; follower += 1) expect(runEventFrame(published)).toBe(first);
    expect(stringify).toHaveBeenCalledTimes(1);

    const replayed = event();
    expect(runEventFrame(replayed)).toBe(first);
    expect(stringify).toHaveBeenCalledTimes(2);
  });
});
