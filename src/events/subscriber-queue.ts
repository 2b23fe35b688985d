import type { AgentEvent, AgentEventOf } from './agent-event.js';
import { type DeliveryClass, deliveryClass } from './delivery-class.js';
import { FragmentBuffer } from './fragment-buffer.js';
import type { RunLane } from './run-lane.js';

export { type DeliveryClass, deliveryClass } from './delivery-class.js';

/** What happened to the events offered to one subscriber. */
export interface SubscriberStats {
  /** Events waiting now. */
  readonly queued: number;
  /** The most events ever waiting at once; never above the queue size. */
  readonly maxQueued: number;
  /** Events taken for delivery, gap markers included. */
  readonly delivered: number;
  /** Deltas merged into a delta queued before them. */
  readonly coalesced: number;
  /** Heartbeats, progress events and deltas discarded to keep the bound. */
  readonly dropped: number;
  /** Events not queued while the subscriber was cut off; each is inside a gap marker. */
  readonly lost: number;
  /** Gap markers produced. */
  readonly gaps: number;
  /** True once the subscriber was cut off across more runs than it can track: it gets its gaps, then nothing more. */
  readonly closed: boolean;
}

type Delta = AgentEventOf<'model:delta'>;

function isDelta(event: AgentEvent | undefined): event is Delta {
  return event?.type === 'model:delta';
}

function mergeable(earlier: AgentEvent | undefined, later: Delta): earlier is Delta {
  return isDelta(earlier) && earlier.runId === later.runId && earlier.step === later.step;
}

type MutableDelta = { -readonly [Key in keyof Delta]: Delta[Key] };

/** A new delta with both texts and the later one's place; built field by field, which V8 keeps fast. */
function merge(earlier: Delta, later: Delta): MutableDelta {
  return {
    runId: later.runId,
    seq: later.seq,
    at: later.at,
    type: 'model:delta',
    step: later.step,
    text: earlier.text + later.text,
  };
}

/**
 * The bounded queue between the bus and one subscriber. It never holds more
 * than `capacity` events. When full it coalesces deltas, then drops
 * heartbeats, then progress events; when even `keep` events cannot fit, the
 * subscriber is cut off: nothing more is queued until it has taken
 * everything, then it gets one `gap` event per run naming the seqs it missed,
 * and delivery resumes. A subscriber cut off across more than
 * `maxMissedRuns` runs is closed for good (after its gaps), so even a
 * listener that never returns costs bounded memory. A queue that is behind
 * on a run's answer parks on the run's lane (`RunLane`), so that while all
 * of a bus's subscribers are parked the run records its deltas, heartbeats
 * and progress once instead of offering each to each queue.
 *
 * @example
 * const queue = new SubscriberQueue({ capacity: 100 });
 * queue.offer(event);
 * const next = queue.take();
 */
export class SubscriberQueue {
  readonly capacity: number;
  readonly maxMissedRuns: number;
  #items: AgentEvent[] = [];
  /** How many queued events of each droppable class; lets a full queue decide without scanning. */
  #heartbeats = 0;
  #progress = 0;
  #deltas = 0;
  /** False once no two queued deltas sit side by side (so merging cannot free a slot). */
  #adjacentDeltas = false;
  /**
   * True from the moment the queue is full until the subscriber has taken it
   * down to half: deltas then merge into the tail even when a slot is free,
   * and heartbeats and progress are dropped as if it were full, so the room
   * goes to kept events and a stalled subscriber's queue settles instead of
   * churning (a progress event let into a free slot would only be evicted by
   * the next delta).
   */
  #behind = false;
  /** A merged delta this queue built and still holds: safe to extend in place. */
  #ownedTail: MutableDelta | undefined;
  /**
   * What `offer` decides by itself, recomputed (`#refresh`) after every
   * other change to the queue: the owned tail while it is the last item and
   * the queue is behind (and neither cut off nor closed), which a delta of
   * its run and step merges into; and whether a heartbeat or a progress
   * event would be dropped anyway. A stalled subscriber's events are then
   * decided in O(1), with nothing allocated.
   */
  #appendTarget: MutableDelta | undefined;
  #dropsHeartbeats = false;
  #dropsProgress = false;
  /**
   * Fragments merged into the owned tail, joined into its text only when
   * something reads it (delivery, or a merge elsewhere in the queue): a
   * stalled subscriber should not make the producer pay for joining. Held
   * text is bounded by the answer's length, as with any coalescing.
   */
  #ownedFragments = new FragmentBuffer();
  /** The run lane this queue is parked on, and the lane's counts when it parked; see `RunLane`. */
  #parkedOn: RunLane | undefined;
  #parkedAtDelta = 0;
  #parkedAtDropped = 0;
  #missed: Map<string, { fromSeq: number; toSeq: number }> | undefined;
  #maxQueued = 0;
  #delivered = 0;
  #coalesced = 0;
  #dropped = 0;
  #lost = 0;
  #gaps = 0;
  #closed = false;

  constructor({ capacity, maxMissedRuns = Math.max(64, capacity) }: { capacity: number; maxMissedRuns?: number }) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`queue capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.maxMissedRuns = maxMissedRuns;
  }

  /** True once the queue accepts nothing more; see `SubscriberStats.closed`. */
  get closed(): boolean {
    return this.#closed;
  }

  /** True while nothing waits, gap markers included. */
  get empty(): boolean {
    return this.#items.length === 0 && this.#missed === undefined;
  }

  stats(): SubscriberStats {
    this.#unpark();
    return {
      queued: this.#items.length,
      maxQueued: this.#maxQueued,
      delivered: this.#delivered,
      coalesced: this.#coalesced,
      dropped: this.#dropped,
      lost: this.#lost,
      gaps: this.#gaps,
      closed: this.#closed,
    };
  }

  /**
   * Queues one event, or coalesces, drops or misses it when the queue is
   * full. Returns false once the queue accepts nothing more (see `closed`).
   * `lane` is the event's run's lane: the queue parks on it when it can.
   */
  offer(event: AgentEvent, lane?: RunLane): boolean {
    const kind = deliveryClass(event);
    // Nothing below applies to a queue that keeps up (never parked either): it only queues.
    if (this.#behind) {
      if (this.#parkedOn !== undefined) this.#unpark();
      if (this.#decidedWhileBehind(event, kind)) {
        if (lane !== undefined) this.#park(lane);
        return true;
      }
      const accepted = this.#queue(event, kind);
      this.#refresh();
      if (lane !== undefined) this.#park(lane);
      return accepted;
    }
    const accepted = this.#queue(event, kind);
    // `#queue` may have filled the queue, and a full queue is behind.
    if (this.#behind) this.#refresh();
    return accepted;
  }

  /**
   * Merges a delta into the owned tail, or drops a heartbeat or a progress
   * event, when that is all a queue behind would do with it; true when it
   * did. A subscriber that is behind but not parked (e.g. beside one that
   * keeps up) takes this path, in O(1) with nothing allocated.
   */
  #decidedWhileBehind(event: AgentEvent, kind: DeliveryClass): boolean {
    if (kind === 'coalesce') {
      const target = this.#appendTarget;
      if (target === undefined || target.step !== (event as Delta).step || target.runId !== event.runId) return false;
      this.#ownedFragments.append((event as Delta).text);
      target.seq = event.seq;
      target.at = event.at;
      this.#coalesced += 1;
      return true;
    }
    if (kind === 'heartbeat' ? !this.#dropsHeartbeats : kind !== 'progress' || !this.#dropsProgress) return false;
    this.#dropped += 1;
    return true;
  }

  /** `offer` for a queue that keeps up, and for what `#decidedWhileBehind` leaves. */
  #queue(event: AgentEvent, kind: DeliveryClass): boolean {
    if (this.#closed) return false;
    if (this.#missed !== undefined) {
      this.#miss(event);
      return !this.#closed;
    }
    if (this.#items.length < this.capacity) {
      if (!this.#behind) this.#push(event, kind);
      else if (kind === 'heartbeat' || kind === 'progress') this.#dropped += 1;
      else if (kind !== 'coalesce' || !this.#extendTail(event as Delta)) this.#push(event, kind);
      return true;
    }
    this.#behind = true;
    if (kind === 'coalesce' && this.#extendTail(event as Delta)) return true;
    if (kind === 'heartbeat') {
      this.#dropped += 1;
      return true;
    }
    if (this.#makeRoom(kind)) {
      // Freeing room may have left a delta of the same step at the tail: merge into it rather than queue beside it.
      if (kind !== 'coalesce' || !this.#extendTail(event as Delta)) this.#push(event, kind);
      return true;
    }
    if (kind === 'keep') {
      this.#miss(event);
      return !this.#closed;
    }
    this.#dropped += 1;
    return true;
  }

  /** The next event to deliver, or undefined when nothing waits. */
  take(): AgentEvent | undefined {
    // Only a queue that is behind can be parked or have anything for `#refresh` to clear.
    const behind = this.#behind;
    if (behind) this.#unpark();
    if (this.#items.length === 0 && this.#missed !== undefined) this.#releaseGaps();
    const next = this.#items.shift();
    if (next === undefined) return undefined;
    if (next === this.#ownedTail) {
      this.#settleOwnedTail();
      this.#ownedTail = undefined;
    }
    if (this.#items.length <= this.capacity / 2) this.#behind = false;
    this.#delivered += 1;
    this.#count(deliveryClass(next), -1);
    if (behind) this.#refresh();
    return next;
  }

  /** Forgets everything waiting and accepts nothing more (the subscriber left). */
  clear(): void {
    this.#unpark();
    this.#closed = true;
    this.#items = [];
    this.#heartbeats = 0;
    this.#progress = 0;
    this.#deltas = 0;
    this.#adjacentDeltas = false;
    this.#behind = false;
    this.#ownedTail = undefined;
    this.#ownedFragments.clear();
    this.#missed = undefined;
    this.#refresh();
  }

  /**
   * Parks on `lane` when every event of its run that can reach this queue
   * now would be merged into the tail or dropped; see `RunLane`.
   */
  #park(lane: RunLane): void {
    const target = this.#appendTarget;
    if (this.#parkedOn !== undefined || target === undefined || target.runId !== lane.runId) return;
    if (!this.#dropsHeartbeats || !this.#dropsProgress || !lane.park(target.step)) return;
    this.#parkedOn = lane;
    this.#parkedAtDelta = lane.deltas;
    this.#parkedAtDropped = lane.dropped;
  }

  /** Takes in what the lane recorded while this queue was parked on it, as `offer` would have. */
  #unpark(): void {
    const lane = this.#parkedOn;
    if (lane === undefined) return;
    this.#parkedOn = undefined;
    const merged = lane.deltas - this.#parkedAtDelta;
    const target = this.#appendTarget;
    if (merged > 0 && target !== undefined) {
      this.#ownedFragments.append(lane.textFrom(this.#parkedAtDelta));
      target.seq = lane.lastDeltaSeq;
      target.at = lane.lastDeltaAt;
      this.#coalesced += merged;
    }
    this.#dropped += lane.dropped - this.#parkedAtDropped;
    lane.leave();
  }

  /** Recomputes what `offer` decides by itself from the queue's state. */
  #refresh(): void {
    const open = this.#behind && this.#missed === undefined && !this.#closed;
    // A queue that keeps up stays here: nothing was set (all three are set only while open), nothing to clear.
    if (!open && !this.#dropsHeartbeats) return;
    const owned = this.#ownedTail;
    this.#appendTarget =
      open && owned !== undefined && this.#items[this.#items.length - 1] === owned ? owned : undefined;
    this.#dropsHeartbeats = open;
    // Only an evicted heartbeat or a merge of two queued deltas would make room for progress once behind.
    this.#dropsProgress = open && this.#heartbeats === 0 && !this.#adjacentDeltas;
  }

  /**
   * Merges a delta into the queued delta at the tail, when both belong to the
   * same run and step; true when it did. The first merge copies the tail into
   * an event this queue owns; later ones only record the fragment and move
   * the tail's seq (`offer` does the same, without this call, while behind).
   */
  #extendTail(event: Delta): boolean {
    const last = this.#items.length - 1;
    const tail = this.#items[last];
    const owned = this.#ownedTail;
    if (tail === owned && owned !== undefined) {
      if (owned.runId !== event.runId || owned.step !== event.step) return false;
      this.#ownedFragments.append(event.text);
      owned.seq = event.seq;
      owned.at = event.at;
    } else {
      if (!mergeable(tail, event)) return false;
      this.#settleOwnedTail();
      this.#ownedTail = merge(tail, event);
      this.#items[last] = this.#ownedTail;
    }
    this.#coalesced += 1;
    return true;
  }

  /** Joins the owned tail's pending fragments into its text. */
  #settleOwnedTail(): void {
    if (this.#ownedTail === undefined || this.#ownedFragments.size === 0) return;
    this.#ownedTail.text += this.#ownedFragments.take();
  }

  #count(kind: DeliveryClass, by: 1 | -1): void {
    if (kind === 'heartbeat') this.#heartbeats += by;
    else if (kind === 'progress') this.#progress += by;
    else if (kind === 'coalesce') this.#deltas += by;
  }

  #push(event: AgentEvent, kind: DeliveryClass): void {
    if (kind === 'coalesce' && mergeable(this.#items[this.#items.length - 1], event as Delta)) {
      this.#adjacentDeltas = true;
    }
    this.#items.push(event);
    this.#count(kind, 1);
    if (this.#items.length > this.#maxQueued) this.#maxQueued = this.#items.length;
  }

  /** Frees one slot for an event of the given class, cheapest loss first. */
  #makeRoom(kind: DeliveryClass): boolean {
    if (this.#heartbeats > 0) return this.#evict((item) => item.type === 'heartbeat');
    if (this.#adjacentDeltas && this.#mergeAdjacentDeltas()) return true;
    if (kind === 'progress') return false;
    if (this.#progress > 0) return this.#evict((item) => deliveryClass(item) === 'progress');
    if (kind === 'coalesce') return false;
    if (this.#deltas > 0) return this.#evict(isDelta);
    return false;
  }

  /**
   * Drops the newest queued event that matches, merging the deltas it leaves
   * side by side. Newest, because under a flood of deltas that is the one
   * just let in, at the tail, where removing it costs nothing.
   */
  #evict(matches: (item: AgentEvent) => boolean): boolean {
    const last = this.#items.length - 1;
    const tail = this.#items[last];
    const index = tail !== undefined && matches(tail) ? last : this.#items.findLastIndex(matches);
    const [evicted] = index < 0 ? [] : index === last ? [this.#items.pop()] : this.#items.splice(index, 1);
    if (evicted === undefined) return false;
    if (evicted === this.#ownedTail) {
      this.#ownedTail = undefined;
      this.#ownedFragments.clear();
    }
    this.#count(deliveryClass(evicted), -1);
    this.#dropped += 1;
    const before = this.#items[index - 1];
    const after = this.#items[index];
    if (isDelta(after) && mergeable(before, after)) {
      this.#settleOwnedTail();
      this.#items.splice(index - 1, 2, merge(before, after));
      this.#deltas -= 1;
      this.#coalesced += 1;
    }
    return true;
  }

  /**
   * Merges the pair of side-by-side deltas nearest the tail, where pushes
   * create them, so freeing a slot costs little; true when one was found.
   */
  #mergeAdjacentDeltas(): boolean {
    for (let index = this.#items.length - 1; index > 0; index -= 1) {
      const later = this.#items[index];
      const earlier = this.#items[index - 1];
      if (isDelta(later) && mergeable(earlier, later)) {
        this.#settleOwnedTail();
        this.#items.splice(index - 1, 2, merge(earlier, later));
        this.#deltas -= 1;
        this.#coalesced += 1;
        return true;
      }
    }
    this.#adjacentDeltas = false;
    return false;
  }

  #miss(event: AgentEvent): void {
    this.#missed ??= new Map();
    this.#lost += 1;
    const range = this.#missed.get(event.runId);
    if (range !== undefined) range.toSeq = Math.max(range.toSeq, event.seq);
    else if (this.#missed.size < this.maxMissedRuns)
      this.#missed.set(event.runId, { fromSeq: event.seq, toSeq: event.seq });
    else this.#closed = true;
  }

  /** Turns the missed ranges into gap events, at most a queue's worth at a time. */
  #releaseGaps(): void {
    const missed = this.#missed;
    if (missed === undefined) return;
    const at = Date.now();
    for (const [runId, { fromSeq, toSeq }] of missed) {
      if (this.#items.length >= this.capacity) break;
      this.#push({ type: 'gap', runId, seq: toSeq, at, fromSeq, toSeq }, 'keep');
      this.#gaps += 1;
      missed.delete(runId);
    }
    if (missed.size === 0) this.#missed = undefined;
  }
}
