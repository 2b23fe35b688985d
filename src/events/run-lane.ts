import type { AgentEventBody } from './agent-event.js';
import { FragmentBuffer } from './fragment-buffer.js';
import { deliveryClassOf } from './subscriber-queue.js';

/** What a queue parked on a lane takes back when the lane is flushed. */
export interface LaneRecord {
  /** The recorded deltas' texts, in order; read (`appendAll`), never changed, by the queues. */
  readonly texts: FragmentBuffer;
  /** Deltas recorded (each merged into the queue's tail). */
  readonly deltas: number;
  /** Seq and time of the last delta recorded (meaningless when `deltas` is 0). */
  readonly lastSeq: number;
  readonly lastAt: number;
  /** Heartbeats and progress events recorded (each dropped by the queue). */
  readonly dropped: number;
}

/** What a lane needs of a queue parked on it. */
export interface LaneQueue {
  /** Takes what the lane recorded while the queue was parked on it, as `offer` would have, and unparks. */
  absorb(record: LaneRecord): void;
}

/**
 * One run's shortcut past the subscriber queues while every subscriber of
 * the bus is behind on that run. A queue can park when it would do the same
 * with every delta of its tail's step and every heartbeat (and, when it
 * holds no heartbeat and no side-by-side deltas, every progress event):
 * merge the delta into its tail, drop the others (see `SubscriberQueue`).
 * When every subscriber of the bus's current list is parked on the lane, the
 * lane is active for that list: the emitter records such events here once,
 * allocating nothing per event, instead of offering each to each queue.
 *
 * Correct by one rule: the lane is flushed, every parked queue taking back
 * exactly what was recorded and the lane going inactive, before anything
 * else touches a parked queue (any of its entry points: offer, take, stats,
 * clear) and before the emitter offers any event it did not record (a kept
 * event, a delta of another step, an event after the subscriber list
 * changed). The lane starts recording only once every queue is parked, so
 * all its queues miss exactly the same events.
 *
 * @example
 * const lane = new RunLane('run_1');
 * lane.activate(subscribers, queues, 1, true); // every subscriber's queue is behind on step 1 of run_1
 * lane.record(deltaBody, deltaEvent); // true: recorded once for all
 * lane.flush(); // each queue merges the text, counts the drops, and unparks
 */
export class RunLane {
  readonly runId: string;
  /** The bus's subscriber list the lane is active for; undefined while inactive. */
  activeFor: readonly unknown[] | undefined;
  #queues: readonly LaneQueue[] = [];
  #step = 0;
  #dropsProgress = false;
  /** The recorded deltas' texts, one fragment a delta: its size is also how many deltas were recorded. */
  #texts = new FragmentBuffer();
  #lastSeq = 0;
  #lastAt = 0;
  #dropped = 0;

  constructor(runId: string) {
    this.runId = runId;
  }

  /**
   * Starts recording for `subscribers` (the bus's current list), whose
   * queues, `queues`, have all parked on this lane with their tails a delta
   * of `step`; `dropsProgress` when every one of them would drop a progress
   * event.
   */
  activate(subscribers: readonly unknown[], queues: readonly LaneQueue[], step: number, dropsProgress: boolean): void {
    this.activeFor = subscribers;
    this.#queues = queues;
    this.#step = step;
    this.#dropsProgress = dropsProgress;
  }

  /**
   * Records one event of the run for every parked queue; call it only while
   * the lane is active for the bus's current list. True when it did; false
   * for an event the queues must see: the caller flushes and offers it.
   * `body` is the event as the emitter was given it: its type and text are
   * read there (a handful of shapes) rather than on the event (one shape per
   * type after the envelope is spread in), which measurably costs less; the
   * envelope's `seq` and `at` come as the emitter's own numbers for the same
   * reason.
   */
  record(body: AgentEventBody, seq: number, at: number): boolean {
    const type = body.type;
    if (type === 'model:delta') {
      if (body.step !== this.#step) return false;
      this.#texts.append(body.text);
      this.#lastSeq = seq;
      this.#lastAt = at;
      return true;
    }
    if (type === 'heartbeat' || (this.#dropsProgress && deliveryClassOf(type) === 'progress')) {
      this.#dropped += 1;
      return true;
    }
    return false;
  }

  /** Hands what was recorded to every parked queue and goes inactive; nothing when inactive. */
  flush(): void {
    if (this.activeFor === undefined) return;
    const queues = this.#queues;
    const record: LaneRecord = {
      texts: this.#texts,
      deltas: this.#texts.size,
      lastSeq: this.#lastSeq,
      lastAt: this.#lastAt,
      dropped: this.#dropped,
    };
    // Reset before handing over: a queue taking the record must find the lane inactive.
    this.activeFor = undefined;
    this.#queues = [];
    this.#texts = new FragmentBuffer();
    this.#dropped = 0;
    for (const queue of queues) queue.absorb(record);
  }
}
