import type { Mutable } from '../util/mutable.js';
import type { AgentEvent, AgentEventOf } from './agent-event.js';
import { FragmentBuffer } from './fragment-buffer.js';
import type { LaneQueue, LaneRecord, RunLane } from './run-lane.js';

/**
 * How an event may be treated when a subscriber's queue is full:
 * `coalesce` merges into the queued delta before it, `heartbeat` is dropped
 * first, `progress` is dropped next, `keep` is never dropped silently.
 */
export type DeliveryClass = 'coalesce' | 'heartbeat' | 'progress' | 'keep';

/**
 * The delivery class of an event. Terminal, approval, start and error events
 * are `keep`: losing one leaves a person staring at "typing…" forever or an
 * approval card that never appears.
 *
 * @example
 * deliveryClass({ type: 'heartbeat', runId: 'r1', seq: 4, at: 0 }); // 'heartbeat'
 */
export function deliveryClass(event: Pick<AgentEvent, 'type'>): DeliveryClass {
  return deliveryClassOf(event.type);
}

/**
 * The delivery class of events of type `type`; for a caller that has read
 * the type already (the run lane, on the emitter's path), where passing the
 * event would read it again, from one of many shapes.
 *
 * @example
 * deliveryClassOf('tool:start'); // 'progress'
 */
export function deliveryClassOf(type: AgentEvent['type']): DeliveryClass {
  switch (type) {
    case 'model:delta':
      return 'coalesce';
    case 'heartbeat':
      return 'heartbeat';
    case 'tool:proposed':
    case 'tool:start':
    case 'tool:progress':
    case 'tool:end':
    case 'model:end':
      return 'progress';
    default:
      return 'keep';
  }
}

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

type MutableDelta = Mutable<Delta>;

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
 * listener that never returns costs bounded memory.
 *
 * @example
 * const queue = new SubscriberQueue({ capacity: 100 });
 * queue.offer(event);
 * const next = queue.take();
 */
export class SubscriberQueue implements LaneQueue {
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
  /** A merged delta this queue built and still holds at its tail: safe to extend in place. */
  #ownedTail: MutableDelta | undefined;
  /**
   * Fragments merged into the owned tail, joined into its text only when
   * something reads it (delivery, or a merge elsewhere in the queue): joining
   * costs about as much per fragment as the whole emit, and a stalled
   * subscriber should not make the producer pay it. Held text is bounded by
   * the answer's length, as with any coalescing.
   */
  #ownedFragments = new FragmentBuffer();
  /** The run lane this queue is parked on (see `RunLane`): flushed before anything else touches the queue. */
  #lane: RunLane | undefined;
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
    this.#lane?.flush();
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
   * full. `kind` is the event's `deliveryClass`; a bus with several
   * subscribers computes it once per event and passes it to each. Returns
   * false once the queue accepts nothing more (see `closed`).
   */
  offer(event: AgentEvent, kind: DeliveryClass = deliveryClass(event)): boolean {
    this.#lane?.flush();
    if (this.#closed) return false;
    if (this.#missed !== undefined) {
      this.#miss(event);
      return !this.#closed;
    }
    // A stalled subscriber under a streamed answer spends nearly all its events here: keep this path allocation-free.
    if (kind === 'coalesce' && this.#behind && this.#extendTail(event as Delta)) return true;
    if (this.#items.length < this.capacity) {
      if (this.#behind && (kind === 'heartbeat' || kind === 'progress')) this.#dropped += 1;
      else this.#push(event, kind);
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
    this.#lane?.flush();
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
    return next;
  }

  /** Forgets everything waiting and accepts nothing more (the subscriber left). */
  clear(): void {
    this.#lane?.flush();
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
  }

  /**
   * True when this queue may park on `lane` for deltas of `step`: it is
   * behind (so it drops heartbeats), neither cut off nor closed, not parked
   * elsewhere, and its tail is a delta of the lane's run and `step` that it
   * owns (so it merges such deltas into it). See `RunLane`.
   */
  canPark(lane: RunLane, step: number): boolean {
    const owned = this.#ownedTail;
    return (
      this.#behind &&
      this.#lane === undefined &&
      this.#missed === undefined &&
      !this.#closed &&
      owned !== undefined &&
      this.#items[this.#items.length - 1] === owned &&
      owned.runId === lane.runId &&
      owned.step === step
    );
  }

  /** True when a parked queue would drop a progress event: it holds no heartbeat to evict and no two deltas to merge. */
  get dropsProgressWhileParked(): boolean {
    return this.#heartbeats === 0 && !this.#adjacentDeltas;
  }

  /** Parks on `lane`; call only after `canPark` said yes. */
  park(lane: RunLane): void {
    this.#lane = lane;
  }

  /** See `LaneQueue`: merges the recorded deltas into the owned tail and counts the recorded drops, as `offer` would have. */
  absorb(record: LaneRecord): void {
    this.#lane = undefined;
    this.#dropped += record.dropped;
    if (record.deltas === 0) return;
    const owned = this.#ownedTail;
    // A parked queue is touched by nothing but `absorb`: its owned tail is the one it parked with.
    if (owned === undefined) throw new Error('a queue parked on a run lane lost its tail');
    this.#ownedFragments.appendAll(record.texts);
    owned.seq = record.lastSeq;
    owned.at = record.lastAt;
    this.#coalesced += record.deltas;
  }

  /**
   * Merges a delta into the queued delta at the tail, when both belong to the
   * same run and step; true when it did. The first merge copies the tail into
   * an event this queue owns; later ones only record the fragment and move
   * the tail's seq, so a long stall costs no allocation per delta.
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
      this.#coalesced += 1;
      return true;
    }
    if (!mergeable(tail, event)) return false;
    this.#settleOwnedTail();
    this.#ownedTail = merge(tail, event);
    this.#items[last] = this.#ownedTail;
    this.#coalesced += 1;
    return true;
  }

  #settleOwnedTail(): void {
    if (this.#ownedTail === undefined) return;
    if (this.#ownedFragments.size > 0) this.#ownedTail.text += this.#ownedFragments.take();
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
