import { isThenable } from '../util/is-thenable.js';
import type { AgentEvent, AgentEventBody, EventDraft } from './agent-event.js';
import { RunLane } from './run-lane.js';
import { type DeliveryClass, deliveryClassOf, SubscriberQueue, type SubscriberStats } from './subscriber-queue.js';

export type EventListener = (event: AgentEvent) => void | Promise<void>;

/** Called when a listener throws or rejects; the run goes on regardless. */
export type ListenerErrorHandler = (error: unknown, event: AgentEvent) => void;

/** The producer side of one run: assigns `seq` and `at`, then publishes. */
export interface RunEmitter {
  readonly runId: string;
  /** The seq of the last event emitted (0 before the first). */
  readonly lastSeq: number;
  emit(body: AgentEventBody): AgentEvent;
  /**
   * `emit` for an event the caller built whole (`EventDraft`: its envelope
   * first, as placeholders): the envelope is written into it, and it is
   * published as it is, not copied into a new event with the body's fields
   * (each copied property about 150-300 instructions). For the events every
   * step emits (issue 48).
   *
   * @example
   * emitter.emitDraft({ runId: '', seq: 0, at: 0, type: 'tool:start', step, toolCallId, tool });
   */
  emitDraft(draft: EventDraft): AgentEvent;
  /**
   * Moves the numbering on to `seq` when it is behind: a durable engine
   * replayed a recorded step whose events were published the first time, so
   * the next event continues after them instead of repeating their seqs.
   */
  advanceTo?(seq: number): void;
}

export interface SubscribeOptions {
  /** The most events waiting for this listener; see `SubscriberQueue` for what happens beyond. Default: the bus's. */
  readonly queueSize?: number;
  /** Told when this listener throws or rejects, besides the bus's `onListenerError`. */
  readonly onError?: ListenerErrorHandler;
  /**
   * Called once if the bus gives up on this listener: it was cut off across
   * more runs than it can track (64, or the queue size if larger). It still
   * gets its queued events and gap markers, then nothing more; resubscribe
   * and replay from the event log.
   */
  readonly onCutOff?: () => void;
}

/**
 * What `subscribe` returns: call it to unsubscribe. It also tells how the
 * subscriber is keeping up, and when it has caught up.
 */
export interface Subscription {
  (): void;
  stats(): SubscriberStats;
  /** Resolves once every queued event has been handled (never, for a listener that never returns). */
  idle(): Promise<void>;
}

const defaultQueueSize = 1024;

/** Settled once: `settled.then(work)` queues `work` as a microtask (see `Subscriber.offer`). */
const settled: Promise<void> = Promise.resolve();

/**
 * The typed event bus. Events are a side channel, never the trunk: `emit`
 * only numbers the event and puts it in each subscriber's bounded queue;
 * listeners run later, from a microtask, never on the producer's stack.
 * Each subscriber gets its events in seq order, one at a time: an async
 * listener gets the next event after its promise settles. A listener that
 * throws or rejects is reported and skipped; one that never returns stalls
 * only its own queue, which then coalesces deltas and drops heartbeats and
 * progress, and cuts the subscriber off with a `gap` event rather than block
 * the run or grow memory. While every subscriber is behind on a run, that
 * run's deltas and heartbeats are recorded once in its `RunLane` instead of
 * offered to each queue, and handed to the queues, exactly as offering them
 * would have left them, before anything else reaches a queue.
 *
 * @example
 * const bus = new EventBus({ onListenerError: (error) => log.warn(error) });
 * const stop = bus.subscribe((event) => console.log(event.seq, event.type), { queueSize: 100 });
 * await runAgent({ model, tools, messages, events: bus });
 * stop();
 */
export class EventBus {
  /** Shared with every emitter of this bus; see `Audience`. */
  readonly #audience: Audience = { subscribers: [] };
  readonly #onListenerError: ListenerErrorHandler;
  readonly #queueSize: number;

  constructor({
    onListenerError = () => {},
    queueSize = defaultQueueSize,
  }: { onListenerError?: ListenerErrorHandler; queueSize?: number } = {}) {
    this.#onListenerError = onListenerError;
    this.#queueSize = queueSize;
  }

  /** Adds a listener with its own queue; returns the function that removes it. */
  subscribe(
    listener: EventListener,
    { queueSize = this.#queueSize, onError, onCutOff }: SubscribeOptions = {},
  ): Subscription {
    const subscriber: Subscriber = new Subscriber({
      listener,
      queue: new SubscriberQueue({ capacity: queueSize }),
      report: (error, event) => {
        this.reportListenerError(error, event);
        if (onError !== undefined) guard(() => onError(error, event));
      },
      cutOff: () => {
        this.#remove(subscriber);
        if (onCutOff !== undefined) queueMicrotask(() => guard(onCutOff));
      },
    });
    this.#audience.subscribers = [...this.#audience.subscribers, subscriber];
    const unsubscribe = () => {
      this.#remove(subscriber);
      subscriber.close();
    };
    return Object.assign(unsubscribe, {
      stats: () => subscriber.queue.stats(),
      idle: () => subscriber.idle(),
    });
  }

  /** A producer for one run; `startSeq` continues a resumed run's numbering. */
  forRun(runId: string, { startSeq = 0 }: { startSeq?: number } = {}): RunEmitter {
    return new Emitter(this.#audience, runId, startSeq);
  }

  /**
   * Resolves once every subscriber has handled everything queued so far;
   * use it before printing a run's result. Never resolves while a listener
   * is stuck; subscribers cut off for good are not waited for.
   */
  async idle(): Promise<void> {
    await Promise.all(this.#audience.subscribers.map((subscriber) => subscriber.idle()));
  }

  #remove(subscriber: Subscriber): void {
    this.#audience.subscribers = this.#audience.subscribers.filter((other) => other !== subscriber);
  }

  /** Passes a listener's failure to `onListenerError`; for helpers that call listeners outside the queue. */
  reportListenerError(error: unknown, event: AgentEvent): void {
    guard(() => this.#onListenerError(error, event));
  }
}

/** The subscribers of one bus, as every emitter of the bus reads them. */
interface Audience {
  /** Replaced, never mutated, on subscribe and unsubscribe: `emit` walks a snapshot, cheaply. */
  subscribers: readonly Subscriber[];
}

/**
 * `forRun`'s emitter. A class rather than an object literal: the literal,
 * with its `lastSeq` getter, was a dictionary-mode object in V8, and every
 * `emitter.emit` call paid a dictionary lookup (70-88 instructions).
 */
class Emitter implements RunEmitter {
  readonly runId: string;
  readonly #audience: Audience;
  #seq: number;
  /** Made on the first delta offered to a subscriber: a run nobody listens to allocates nothing for it. */
  #lane: RunLane | undefined = undefined;

  constructor(audience: Audience, runId: string, startSeq: number) {
    this.#audience = audience;
    this.runId = runId;
    this.#seq = startSeq;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  advanceTo(seq: number): void {
    if (seq > this.#seq) this.#seq = seq;
  }

  emit(body: AgentEventBody): AgentEvent {
    const seq = this.#seq + 1;
    this.#seq = seq;
    const at = Date.now();
    // Envelope first: V8 takes a slow path when properties are added after a spread.
    return this.#publish({ runId: this.runId, seq, at, ...body } as AgentEvent, body, seq, at, body.type);
  }

  emitDraft(draft: EventDraft): AgentEvent {
    const seq = this.#seq + 1;
    this.#seq = seq;
    const at = Date.now();
    draft.runId = this.runId;
    draft.seq = seq;
    draft.at = at;
    return this.#publish(draft as AgentEvent, draft as AgentEventBody, seq, at, draft.type);
  }

  /**
   * Offers a numbered event to every subscriber; `body` is what the run lane records. Its `seq`, `at` and
   * `type` are handed in, not read back from the event: this one place sees every shape of event, and a read
   * of a property from more than four shapes goes through V8's megamorphic cache.
   */
  #publish(event: AgentEvent, body: AgentEventBody, seq: number, at: number, type: AgentEvent['type']): AgentEvent {
    const subscribers = this.#audience.subscribers;
    if (subscribers.length === 0) return event;
    let lane = this.#lane;
    if (lane !== undefined && lane.activeFor !== undefined) {
      // Every subscriber is behind on this run: record the event once for all, or flush before offering it.
      if (lane.activeFor === subscribers && lane.record(body, seq, at)) return event;
      lane.flush();
    }
    const kind = deliveryClassOf(type);
    for (const subscriber of subscribers) subscriber.offer(event, kind);
    if (kind === 'coalesce') {
      if (lane === undefined) {
        lane = new RunLane(this.runId);
        this.#lane = lane;
      }
      park(lane, subscribers, (event as AgentEvent & { step: number }).step);
    }
    return event;
  }
}

/**
 * Activates `lane` for `subscribers` (the bus's current list) when every
 * one of their queues can park on it for deltas of `step`; see `RunLane`.
 */
function park(lane: RunLane, subscribers: readonly Subscriber[], step: number): void {
  let dropsProgress = true;
  for (const subscriber of subscribers) {
    if (!subscriber.queue.canPark(lane, step)) return;
    dropsProgress &&= subscriber.queue.dropsProgressWhileParked;
  }
  const queues = subscribers.map((subscriber) => subscriber.queue);
  for (const queue of queues) queue.park(lane);
  lane.activate(subscribers, queues, step, dropsProgress);
}

function guard(call: () => void): void {
  try {
    call();
  } catch {
    // The error reporter itself failed; there is nobody left to tell.
  }
}

/** One listener and its queue; delivers in order, one event at a time. */
class Subscriber {
  readonly queue: SubscriberQueue;
  readonly #listener: EventListener;
  readonly #report: ListenerErrorHandler;
  readonly #cutOff: () => void;
  #scheduled = false;
  #busy = false;
  #closed = false;
  #cutOffDone = false;
  #waiters: (() => void)[] = [];

  constructor({
    listener,
    queue,
    report,
    cutOff,
  }: {
    listener: EventListener;
    queue: SubscriberQueue;
    report: ListenerErrorHandler;
    cutOff: () => void;
  }) {
    this.#listener = listener;
    this.queue = queue;
    this.#report = report;
    this.#cutOff = cutOff;
  }

  offer(event: AgentEvent, kind: DeliveryClass): void {
    if (this.#closed || this.#cutOffDone) return;
    if (!this.queue.offer(event, kind)) {
      this.#cutOffDone = true;
      this.#cutOff();
    }
    if (this.#busy || this.#scheduled) return;
    this.#scheduled = true;
    // A reaction to a settled promise is a microtask queued at once, as `queueMicrotask` queues it, in the same
    // queue and order, in the caller's async context; without the async resource, bound function and their
    // bookkeeping Node makes per `queueMicrotask` (about 900 instructions a step on the agent path).
    settled.then(this.#drain);
  }

  idle(): Promise<void> {
    if (this.#settled()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.#closed = true;
    this.queue.clear();
    this.#wake();
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    if (this.#busy) return;
    this.#busy = true;
    for (;;) {
      const event = this.#closed ? undefined : this.queue.take();
      if (event === undefined) break;
      let result: unknown;
      try {
        result = this.#listener(event);
      } catch (error) {
        this.#report(error, event);
        continue;
      }
      if (isThenable(result)) {
        result.then(this.#resume, (error: unknown) => {
          this.#report(error, event);
          this.#resume();
        });
        return;
      }
    }
    this.#busy = false;
    this.#wake();
  };

  readonly #resume = (): void => {
    this.#busy = false;
    this.#drain();
  };

  #settled(): boolean {
    return this.#closed || (!this.#busy && !this.#scheduled && this.queue.empty);
  }

  #wake(): void {
    if (!this.#settled()) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
