/** The least an event must carry for the typing indicator: internal and external events both do. */
export interface TypingSignal {
  readonly type: string;
  readonly runId: string;
}

export interface TypingIndicator {
  /** True while at least one run is busy and not waiting for a person. */
  readonly typing: boolean;
  /** Feeds one event; call it for every event of the stream. */
  handle(event: TypingSignal): void;
  /** Clears the timers; the indicator goes quiet without calling `onChange`. */
  dispose(): void;
}

const endedMemory = 256;

interface RunState {
  timer: ReturnType<typeof setTimeout> | undefined;
  waitingForPerson: boolean;
}

/**
 * The consumer side of "typing…": on when a run starts or shows any sign of
 * life, off on `run:end` or `run:error`, paused while an approval card waits
 * for a person, and off by itself when neither a heartbeat nor any other
 * event came for `timeoutMs`, because a crashed process or a dropped
 * connection never sends `run:end`. `onChange` is called on every change.
 *
 * @example
 * const indicator = createTypingIndicator({ timeoutMs: 15_000, onChange: (typing) => bubble.setTyping(typing) });
 * bus.subscribe((event) => indicator.handle(event));
 */
export function createTypingIndicator({
  timeoutMs = 15_000,
  onChange,
}: {
  timeoutMs?: number;
  onChange: (typing: boolean) => void;
}): TypingIndicator {
  const runs = new Map<string, RunState>();
  /** Runs that ended, so a late heartbeat cannot turn typing back on; the oldest are forgotten. */
  const ended = new Set<string>();
  let typing = false;

  const update = () => {
    const now = [...runs.values()].some((run) => !run.waitingForPerson);
    if (now === typing) return;
    typing = now;
    onChange(now);
  };
  const forget = (runId: string) => {
    const run = runs.get(runId);
    if (run?.timer !== undefined) clearTimeout(run.timer);
    runs.delete(runId);
  };
  const arm = (runId: string, run: RunState) => {
    if (run.timer !== undefined) clearTimeout(run.timer);
    run.timer = setTimeout(() => {
      runs.delete(runId);
      update();
    }, timeoutMs);
    run.timer.unref?.();
  };

  return {
    get typing() {
      return typing;
    },
    handle(event) {
      if (event.type === 'run:end' || event.type === 'run:error') {
        forget(event.runId);
        ended.add(event.runId);
        if (ended.size > endedMemory) ended.delete(ended.values().next().value ?? '');
        update();
        return;
      }
      if (ended.has(event.runId) && event.type !== 'run:start') return;
      ended.delete(event.runId);
      let run = runs.get(event.runId);
      if (run === undefined) {
        run = { timer: undefined, waitingForPerson: false };
        runs.set(event.runId, run);
      }
      if (event.type === 'approval:required') run.waitingForPerson = true;
      else if (event.type !== 'heartbeat') run.waitingForPerson = false;
      arm(event.runId, run);
      update();
    },
    dispose() {
      for (const runId of [...runs.keys()]) forget(runId);
      typing = false;
    },
  };
}
