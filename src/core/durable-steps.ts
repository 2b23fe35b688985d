import type { Awaitable } from './awaitable.js';

/**
 * The seam between arbiter's loop and a durable execution engine: what
 * replay must not repeat. The loop runs each model turn and each validated,
 * gated tool execution as a named step; an engine records the step's result
 * and, when it replays the run after a crash or a deploy, hands the recorded
 * result back instead of running it again. Time and ids are read through
 * it, so code an engine replays reads no clock and draws no random id of
 * its own. An approval is waited for as a signal with a deadline.
 *
 * Arbiter's own journal and lease keeper are one implementation
 * (`arbiterSteps`: a step simply runs; the journal records its result, and a
 * run waiting for a person is suspended and claimed again once decided).
 * DBOS (`runStep`, `recv`/`send`), Restate (`ctx.run`, awakeables) and
 * Temporal (activities, signals) are others.
 *
 * Whatever the engine, arbiter keeps deciding inside the step: validation,
 * tiers, rules, approvals, the idempotency claim that turns an
 * at-least-once step into one effect, the audit, the event stream.
 *
 * @example
 * const steps: DurableSteps = {
 *   step: (name, run) => DBOS.runStep(run, { name }),
 *   now: () => DBOS.now(),
 *   newId: () => DBOS.randomUUID(),
 *   waitForSignal: async ({ topic, timeoutMs }) =>
 *     (await DBOS.recv(topic, { timeoutSeconds: timeoutMs / 1000 })) ?? undefined,
 * };
 * await runAgent({ model, tools, messages, steps });
 */
export interface DurableSteps {
  /**
   * Runs `run` as the step `name`, once; on replay, resolves with the result
   * recorded the first time. `name` is stable across replays (`model:3`,
   * `tool:call_1`); an engine that keys steps by their order checks it. The
   * result is plain JSON.
   */
  step<Result>(name: string, run: () => Promise<Result>): Promise<Result>;
  /** The time in milliseconds since the epoch, as the engine recorded it for this point of the run. */
  now(): Awaitable<number>;
  /** A new id, the same one on replay. */
  newId(): Awaitable<string>;
  /**
   * Waits for the signal `topic` (an approval decided) until `timeoutMs`
   * passes; resolves with its payload, or `undefined` at the deadline.
   * Survives a worker restart in an engine that records it.
   */
  waitForSignal<Payload>(options: {
    readonly topic: string;
    readonly timeoutMs: number;
  }): Awaitable<Payload | undefined>;
  /**
   * The seq of the run's last event already published (written to the
   * event log). A step the engine runs again after a crash first moves the
   * run's numbering past what its cut-short attempt published, so its own
   * events follow those instead of colliding with them. Default: not asked.
   */
  publishedSeq?(): Awaitable<number>;
}
