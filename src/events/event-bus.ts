import type { AgentEvent, AgentEventBody } from './agent-event.js';

export type EventListener = (event: AgentEvent) => void | Promise<void>;

/** Called when a listener throws or rejects; the run goes on regardless. */
export type ListenerErrorHandler = (error: unknown, event: AgentEvent) => void;

/** The producer side of one run: assigns `seq` and `at`, then publishes. */
export interface RunEmitter {
  readonly runId: string;
  /** The seq of the last event emitted (0 before the first). */
  readonly lastSeq: number;
  emit(body: AgentEventBody): AgentEvent;
}

/**
 * The typed event bus. Events are a side channel: listeners run after the
 * producer's current synchronous work, never on the loop's stack, and a
 * listener that throws is reported, not propagated.
 *
 * @example
 * const bus = new EventBus();
 * const stop = bus.subscribe((event) => console.log(event.seq, event.type));
 * await runAgent({ model, tools, messages, events: bus });
 * stop();
 */
export class EventBus {
  readonly #listeners = new Set<EventListener>();
  readonly #onListenerError: ListenerErrorHandler;

  constructor({ onListenerError = () => {} }: { onListenerError?: ListenerErrorHandler } = {}) {
    this.#onListenerError = onListenerError;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** A producer for one run; `startSeq` continues a resumed run's numbering. */
  forRun(runId: string, { startSeq = 0 }: { startSeq?: number } = {}): RunEmitter {
    let seq = startSeq;
    const publish = (event: AgentEvent) => this.#publish(event);
    return {
      runId,
      get lastSeq() {
        return seq;
      },
      emit(body) {
        seq += 1;
        const event = { ...body, runId, seq, at: Date.now() } as AgentEvent;
        publish(event);
        return event;
      },
    };
  }

  #publish(event: AgentEvent): void {
    for (const listener of this.#listeners) {
      queueMicrotask(() => {
        try {
          const result = listener(event);
          if (result instanceof Promise) result.catch((error: unknown) => this.#report(error, event));
        } catch (error) {
          this.#report(error, event);
        }
      });
    }
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      this.#onListenerError(error, event);
    } catch {
      // The error reporter itself failed; there is nobody left to tell.
    }
  }
}
