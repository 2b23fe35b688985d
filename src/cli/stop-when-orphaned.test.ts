import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopWhenOrphaned } from './stop-when-orphaned.js';

afterEach(() => {
  vi.useRealTimers();
});

function watch(environment: Record<string, string>, startParent = 4242) {
  vi.useFakeTimers();
  let parent = startParent;
  const signals: NodeJS.Signals[] = [];
  const unwatch = stopWhenOrphaned({
    environment,
    parentId: () => parent,
    stop: (signal) => signals.push(signal),
    intervalMs: 100,
  });
  return {
    signals,
    unwatch,
    orphan: () => {
      parent = 1;
    },
  };
}

describe('stopWhenOrphaned', () => {
  it('sends SIGTERM once when the npm script that started the process is gone', () => {
    const { signals, orphan } = watch({ npm_lifecycle_event: 'arbiter' });
    vi.advanceTimersByTime(1000);
    expect(signals).toEqual([]);
    orphan();
    vi.advanceTimersByTime(1000);
    expect(signals).toEqual(['SIGTERM']);
  });

  it('watches nothing when not started by a package manager script, or already adopted', () => {
    const direct = watch({});
    direct.orphan();
    vi.advanceTimersByTime(1000);
    expect(direct.signals).toEqual([]);
    const adopted = watch({ npm_lifecycle_event: 'arbiter' }, 1);
    vi.advanceTimersByTime(1000);
    expect(adopted.signals).toEqual([]);
  });

  it('stops watching when told to', () => {
    const { signals, orphan, unwatch } = watch({ npm_lifecycle_event: 'arbiter' });
    unwatch();
    orphan();
    vi.advanceTimersByTime(1000);
    expect(signals).toEqual([]);
  });
});
