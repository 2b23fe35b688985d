import type { AgentEvent, AgentEventBody } from './agent-event.js';
import { deliveryClass } from './delivery-class.js';
import { FragmentBuffer } from './fragment-buffer.js';

/**
 * What one run's events leave for the subscriber queues parked on it. A
 * queue parks when it is behind and would do the same with every event of
 * the run that matters to it: merge a delta of its tail's step into that
 * tail, drop a heartbeat or a progress event (see `SubscriberQueue`). While
 * every subscriber of the bus is parked on the run, the run's emitter
 * records such events here once, in O(1) and with nothing allocated,
 * instead of offering each to each queue; a queue takes what it missed
 * (the deltas' text, the last delta's seq and time, how many were dropped)
 * when it unparks: before its next event, or when its subscriber reads.
 *
 * @example
 * const lane = new RunLane('run_1');
 * lane.park(1); // a queue behind, its tail a delta of step 1
 * const delta = { type: 'model:delta', step: 1, text: 'Hi' } as const;
 * lane.record(delta, { runId: 'run_1', seq: 8, at: Date.now(), ...delta }); // true: merged for it
 * const next = { type: 'model:delta', step: 2, text: 'Next' } as const;
 * lane.record(next, { runId: 'run_1', seq: 9, at: Date.now(), ...next }); // false: offer it to the queue
 */
export class RunLane {
  readonly runId: string;
  /** Queues parked on this lane now. */
  parked = 0;
  /** The step of the deltas parked queues merge; set by the first queue to park. */
  step = 0;
  /** Heartbeats and progress events recorded since the lane was made. */
  dropped = 0;
  /** Seq and time of the last delta recorded. */
  lastDeltaSeq = 0;
  lastDeltaAt = 0;
  /** Texts of the deltas recorded while a queue is parked; let go once none is. */
  #texts = new FragmentBuffer();

  constructor(runId: string) {
    this.runId = runId;
  }

  /** Deltas held: where a queue that parks now starts reading. */
  get deltas(): number {
    return this.#texts.size;
  }

  /**
   * Records one event of the run for the parked queues (`body` as the
   * emitter was given it, `event` the same with its envelope); the emitter
   * calls it only while every subscriber is parked here. True when it did;
   * false for an event a parked queue would have to look at (a kept event,
   * a delta of another step): the emitter offers that one to each queue,
   * and each unparks first.
   */
  record(body: AgentEventBody, event: AgentEvent): boolean {
    // Deltas and heartbeats tested here rather than through deliveryClass's switch, and on the body rather than
    // the event (whose envelope is read for deltas only): this runs for every event, and each was measurable.
    const type = body.type;
    if (type === 'model:delta') {
      if (body.step !== this.step) return false;
      this.#texts.append(body.text);
      this.lastDeltaSeq = event.seq;
      this.lastDeltaAt = event.at;
      return true;
    }
    if (type !== 'heartbeat' && deliveryClass(body) !== 'progress') return false;
    this.dropped += 1;
    return true;
  }

  /** A queue parks on the lane; false when others are parked on another step (it then takes events one by one). */
  park(step: number): boolean {
    if (this.parked > 0 && step !== this.step) return false;
    this.step = step;
    this.parked += 1;
    return true;
  }

  /** The text of the deltas recorded from delta number `start` (a queue's `deltas` when it parked) on. */
  textFrom(start: number): string {
    return this.#texts.textFrom(start);
  }

  /** A queue unparks; once none is left, the texts are let go. */
  leave(): void {
    this.parked -= 1;
    if (this.parked === 0) this.#texts.clear();
  }
}
