import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StoreBusyError } from '../errors/store-busy-error.js';
import type { ExternalEvent } from '../events/external-event.js';
import { EventLogQueue } from './event-log-queue.js';

const event = (runId: string, seq: number) =>
  ({ type: 'text', text: `${seq}`, runId, seq, at: 0 }) as unknown as ExternalEvent;

function harness({ busyWrites = 0, failWith }: { busyWrites?: number; failWith?: Error } = {}) {
  const written: number[][] = [];
  const delivered: number[][] = [];
  const errors: unknown[] = [];
  let busy = busyWrites;
  let attempts = 0;
  let stopping = false;
  const queue = new EventLogQueue({
    log: {
      append: (events) => {
        attempts += 1;
        if (busy > 0) {
          busy -= 1;
          throw new StoreBusyError({ operation: 'event log', waitedMs: 0 });
        }
        if (failWith !== undefined) throw failWith;
        written.push(events.map((logged) => logged.seq));
      },
    },
    deliver: (events) => delivered.push(events.map((logged) => logged.seq)),
    onError: (error) => errors.push(error),
    stopping: () => stopping,
  });
  return {
    queue,
    written,
    delivered,
    errors,
    attempts: () => attempts,
    stop: () => {
      stopping = true;
    },
  };
}

describe('EventLogQueue', () => {
  it('with gatherMs, writes the events of several turns in one append, and a run’s end at once', async () => {
    const written: number[][] = [];
    const delivered: number[][] = [];
    const queue = new EventLogQueue({
      log: { append: (events) => void written.push(events.map((logged) => logged.seq)) },
      deliver: (events) => delivered.push(events.map((logged) => logged.seq)),
      onError: () => {},
      stopping: () => false,
      gatherMs: 60_000,
    });
    queue.push(event('run-1', 1));
    await sleep(0);
    queue.push(event('run-2', 1));
    await sleep(0);
    // Still gathering: nothing written, nothing delivered.
    expect(written).toEqual([]);
    expect(delivered).toEqual([]);
    queue.push({ type: 'run:end', runId: 'run-1', seq: 2, at: 0, stopReason: 'completed' } as unknown as ExternalEvent);
    await sleep(0);
    expect(written).toEqual([[1, 1, 2]]);
    expect(delivered).toEqual([[1, 1, 2]]);
  });

  it('writes the events of one turn in one append, then delivers them', async () => {
    const { queue, written, delivered } = harness();
    queue.push(event('run-1', 1));
    queue.push(event('run-1', 2));
    queue.push(event('run-2', 1));
    expect(written).toEqual([]);
    expect(queue.lastSeq('run-1')).toBe(2);
    expect(queue.lastSeq('run-3')).toBeUndefined();
    await sleep(0);
    expect(written).toEqual([[1, 2, 1]]);
    expect(delivered).toEqual([[1, 2, 1]]);
    expect(queue.lastSeq('run-1')).toBeUndefined();
  });

  it('keeps the events queued while the database is locked, and delivers nothing before they are written', async () => {
    const { queue, written, delivered, attempts } = harness({ busyWrites: 2 });
    queue.push(event('run-1', 1));
    await sleep(5);
    expect(attempts()).toBe(1);
    queue.push(event('run-1', 2));
    expect(delivered).toEqual([]);
    expect(queue.lastSeq('run-1')).toBe(2);
    await sleep(100);
    expect(attempts()).toBe(3);
    expect(written).toEqual([[1, 2]]);
    expect(delivered).toEqual([[1, 2]]);
  });

  it('delivers and reports what the log refuses for another reason, and a lock once stopping', async () => {
    const refused = harness({ failWith: new Error('disk full') });
    refused.queue.push(event('run-1', 1));
    await sleep(0);
    expect(refused.delivered).toEqual([[1]]);
    expect(refused.errors).toHaveLength(1);

    const stopping = harness({ busyWrites: 5 });
    stopping.stop();
    stopping.queue.push(event('run-1', 1));
    await sleep(0);
    expect(stopping.attempts()).toBe(1);
    expect(stopping.delivered).toEqual([[1]]);
    expect(StoreBusyError.isInstance(stopping.errors[0])).toBe(true);
  });

  it('hands every queued event to takeAll, and the write already scheduled finds nothing to do', async () => {
    const { queue, written, delivered } = harness();
    queue.push(event('run-1', 1));
    expect(queue.takeAll().map((taken) => taken.seq)).toEqual([1]);
    await sleep(0);
    expect(written).toEqual([]);
    expect(delivered).toEqual([]);
  });
});

describe('EventLogQueue on an asynchronous log', () => {
  it('writes one batch at a time, in order, and delivers each once it is written', async () => {
    const written: number[][] = [];
    const delivered: number[][] = [];
    let inFlight = 0;
    const queue = new EventLogQueue({
      log: {
        append: async (events) => {
          inFlight += 1;
          expect(inFlight).toBe(1);
          await sleep(20);
          written.push(events.map((logged) => logged.seq));
          inFlight -= 1;
        },
      },
      deliver: (events) => delivered.push(events.map((logged) => logged.seq)),
      onError: (error) => {
        throw error;
      },
      stopping: () => false,
    });
    queue.push(event('run-1', 1));
    await sleep(5);
    queue.push(event('run-1', 2));
    queue.push(event('run-1', 3));
    // Being written or waiting, the events still count for the run's last seq.
    expect(queue.lastSeq('run-1')).toBe(3);
    await sleep(5);
    expect(queue.lastSeq('run-1')).toBe(3);
    await sleep(80);
    expect(written).toEqual([[1], [2, 3]]);
    expect(delivered).toEqual([[1], [2, 3]]);
    expect(queue.lastSeq('run-1')).toBeUndefined();
  });
});
