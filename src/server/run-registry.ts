import type { Locale } from '../core/locale.js';
import type { EventProjector } from '../events/create-event-projector.js';

/** A run executing in this process: the session it belongs to, its language, the seq of its last published event. */
export interface RunStream {
  readonly sessionId: string;
  readonly locale: Locale;
  seq: number;
}

/** A new run being started: `begin` opens its stream and resolves `start` with its id at its `run:start`. */
interface PendingStart {
  readonly sessionId: string;
  readonly locale: Locale;
  readonly resolve: (runId: string) => void;
}

/**
 * The runs executing in this process: each run's stream (numbering its
 * published events), the runs about to start (waiting for their
 * `run:start`) and one event projector per language.
 *
 * @example
 * const registry = new RunRegistry({ projector: (locale) => createEventProjector({ tools, locale }) });
 * registry.expect(runId, { sessionId, locale, resolve });
 * const stream = registry.stream(runId) ?? registry.begin(runId); // at its run:start
 * registry.close(runId); // at its terminal event
 */
export class RunRegistry {
  readonly #createProjector: (locale: Locale) => EventProjector;
  readonly #streams = new Map<string, RunStream>();
  readonly #projectors = new Map<Locale, EventProjector>();
  readonly #pending = new Map<string, PendingStart>();

  constructor({ projector }: { projector: (locale: Locale) => EventProjector }) {
    this.#createProjector = projector;
  }

  /** The stream of a run executing here, if it is. */
  stream(runId: string): RunStream | undefined {
    return this.#streams.get(runId);
  }

  /** True while the run executes here (from its `run:start`, or its resumption, to its terminal event). */
  has(runId: string): boolean {
    return this.#streams.has(runId);
  }

  /** Opens the stream of a resumed run, continuing after `seq`. */
  open(runId: string, { sessionId, locale, seq }: { sessionId: string; locale: Locale; seq: number }): RunStream {
    const stream: RunStream = { sessionId, locale, seq };
    this.#streams.set(runId, stream);
    return stream;
  }

  /** Closes the run's stream (its terminal event went out, or it failed before it began). */
  close(runId: string): void {
    this.#streams.delete(runId);
  }

  /** A new run with this id is about to start: `begin` opens its stream when its `run:start` arrives. */
  expect(runId: string, pending: PendingStart): void {
    this.#pending.set(runId, pending);
  }

  /** The start of `runId` is over (begun or failed): `begin` no longer opens it. */
  forget(runId: string): void {
    this.#pending.delete(runId);
  }

  /**
   * At a `run:start`: opens the stream of the run `expect`ed under this id
   * and resolves its start with the id; undefined for a run nobody expects.
   */
  begin(runId: string): RunStream | undefined {
    const pending = this.#pending.get(runId);
    if (pending === undefined) return undefined;
    this.#pending.delete(runId);
    const stream = this.open(runId, { sessionId: pending.sessionId, locale: pending.locale, seq: 0 });
    pending.resolve(runId);
    return stream;
  }

  /** The event projector for this language, made once. */
  projector(locale: Locale): EventProjector {
    let projector = this.#projectors.get(locale);
    if (projector === undefined) {
      projector = this.#createProjector(locale);
      this.#projectors.set(locale, projector);
    }
    return projector;
  }
}
