import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTypingIndicator } from './create-typing-indicator.js';

const event = (type: string, runId = 'r1') => ({ type, runId });

describe('createTypingIndicator', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('types from run:start until run:end', () => {
    const changes: boolean[] = [];
    const indicator = createTypingIndicator({ timeoutMs: 1000, onChange: (typing) => changes.push(typing) });
    indicator.handle(event('run:start'));
    indicator.handle(event('tool:start'));
    expect(indicator.typing).toBe(true);
    indicator.handle(event('run:end'));
    expect(changes).toEqual([true, false]);
  });

  it('stays on while heartbeats arrive and clears itself when they stop without run:end', () => {
    const changes: boolean[] = [];
    const indicator = createTypingIndicator({ timeoutMs: 1000, onChange: (typing) => changes.push(typing) });
    indicator.handle(event('run:start'));
    for (let beat = 0; beat < 5; beat += 1) {
      vi.advanceTimersByTime(900);
      indicator.handle(event('heartbeat'));
    }
    expect(changes).toEqual([true]);
    vi.advanceTimersByTime(1000);
    expect(changes).toEqual([true, false]);
    expect(indicator.typing).toBe(false);
  });

  it('pauses while an approval waits for a person and resumes when it is resolved', () => {
    const changes: boolean[] = [];
    const indicator = createTypingIndicator({ timeoutMs: 1000, onChange: (typing) => changes.push(typing) });
    indicator.handle(event('run:start'));
    indicator.handle(event('approval:required'));
    indicator.handle(event('heartbeat'));
    expect(indicator.typing).toBe(false);
    indicator.handle(event('approval:resolved'));
    indicator.handle(event('run:error'));
    expect(changes).toEqual([true, false, true, false]);
  });

  it('keeps typing while any run is busy and ignores a late heartbeat of an ended run', () => {
    const changes: boolean[] = [];
    const indicator = createTypingIndicator({ timeoutMs: 1000, onChange: (typing) => changes.push(typing) });
    indicator.handle(event('run:start', 'a'));
    indicator.handle(event('run:start', 'b'));
    indicator.handle(event('run:end', 'a'));
    expect(indicator.typing).toBe(true);
    indicator.handle(event('run:end', 'b'));
    indicator.handle(event('heartbeat', 'b'));
    expect(changes).toEqual([true, false]);
    indicator.dispose();
  });
});
