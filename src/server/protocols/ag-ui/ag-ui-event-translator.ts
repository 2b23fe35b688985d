import { type BaseEvent, EventType, type Interrupt, PROTOCOL_VERSION, type TokenUsage } from '@ag-ui/core';
import type { ExternalEvent, ExternalEventOf } from '../../../events/external-event.js';

/**
 * What the translator reads beside the event stream: the thread's session
 * (for a call's arguments and results, which events never carry) and the
 * run's pending approvals. Every value is fit to show the caller: bound
 * parameters removed, sensitive values `[redacted]`.
 */
export interface AgUiRunView {
  /** A call's arguments as JSON text, fit to show. */
  callArguments(toolCallId: string): Promise<string>;
  /** What the model was told a call returned, fit to show; `undefined` while it is not recorded yet. */
  callResult(toolCallId: string): Promise<string | undefined>;
  /** The run's approvals waiting for a person, as AG-UI interrupts. */
  interrupts(): Promise<Interrupt[]>;
}

export interface AgUiEventTranslatorOptions {
  /** The AG-UI thread and run this stream answers (the client's ids, echoed). */
  readonly threadId: string;
  readonly runId: string;
  /** The arbiter run whose events are translated; message ids derive from it, so a replay repeats them. */
  readonly arbiterRunId: string;
  readonly view: AgUiRunView;
  /** The session's confirmed slots: the state snapshot after `RUN_STARTED`. */
  readonly slots: Readonly<Record<string, unknown>>;
  /** Tokens the arbiter run had spent before this AG-UI run began (a resumed run reports only its own). */
  readonly usageBefore?: { readonly inputTokens: number; readonly outputTokens: number };
}

/** The prefix of the `CUSTOM` events that carry arbiter's own progress (`arbiter.progress`, …). */
export const agUiCustomPrefix = 'arbiter.';

const fallbackResult = (status: string, text?: string): string =>
  JSON.stringify(text === undefined ? { status } : { status, text });

/**
 * Turns one arbiter run's external events into AG-UI events, in order:
 * `RUN_STARTED` and a `STATE_SNAPSHOT` of the session's slots first; per
 * model call a step (`STEP_STARTED`/`STEP_FINISHED`, named `model_call_N`)
 * around its text message (`TEXT_MESSAGE_START/CONTENT/END`, one message
 * per model call); each proposed call as `TOOL_CALL_START/ARGS/END` (the
 * arguments read from the session, fit to show) and its answer as
 * `TOOL_CALL_RESULT` once the run has recorded it (at the next model call
 * or the run's end); arbiter's progress, approvals and retries as `CUSTOM`
 * events named `arbiter.*`. The run's terminal event closes what is open and
 * becomes `RUN_FINISHED` — with the interrupt outcome (one interrupt per
 * pending approval) when the run waits for a person, `cancelled` when it was
 * aborted — or `RUN_ERROR`.
 *
 * Deterministic over the same events and session: a replay yields the same
 * ids.
 *
 * @example
 * const translator = new AgUiEventTranslator({ threadId, runId, arbiterRunId, view, slots });
 * for (const event of translator.start()) send(event);
 * for (const event of await translator.translate(runEvent)) send(event);
 */
export class AgUiEventTranslator {
  readonly #options: AgUiEventTranslatorOptions;
  #step: number | undefined;
  #textOpen = false;
  #finished = false;
  readonly #unanswered: { toolCallId: string; fallback: string }[] = [];

  constructor(options: AgUiEventTranslatorOptions) {
    this.#options = options;
  }

  /** True once the terminal event has been translated. */
  get finished(): boolean {
    return this.#finished;
  }

  /** `RUN_STARTED` and the state snapshot: what every AG-UI run opens with. */
  start(): BaseEvent[] {
    const { threadId, runId, slots } = this.#options;
    return [
      { type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION, timestamp: Date.now() },
      { type: EventType.STATE_SNAPSHOT, snapshot: { ...slots }, timestamp: Date.now() },
    ];
  }

  /** The AG-UI events of one arbiter event (none after the terminal one). */
  async translate(event: ExternalEvent): Promise<BaseEvent[]> {
    if (this.#finished) return [];
    const out: BaseEvent[] = [];
    const timestamp = event.at;
    switch (event.type) {
      case 'run:start':
      case 'heartbeat':
        return out;
      case 'model:delta':
        await this.#enterStep(event.step, timestamp, out);
        if (!this.#textOpen) {
          this.#textOpen = true;
          out.push({
            type: EventType.TEXT_MESSAGE_START,
            messageId: this.#messageId(event.step),
            role: 'assistant',
            timestamp,
          });
        }
        out.push({
          type: EventType.TEXT_MESSAGE_CONTENT,
          messageId: this.#messageId(event.step),
          delta: event.text,
          timestamp,
        });
        return out;
      case 'model:decision':
        await this.#enterStep(event.step, timestamp, out);
        out.push(this.#custom('model_decision', event));
        return out;
      case 'model:end':
        await this.#enterStep(event.step, timestamp, out);
        this.#closeStep(timestamp, out);
        return out;
      case 'tool:proposed':
        out.push(
          {
            type: EventType.TOOL_CALL_START,
            toolCallId: event.toolCallId,
            toolCallName: event.tool,
            parentMessageId: this.#messageId(event.step),
            timestamp,
          },
          {
            type: EventType.TOOL_CALL_ARGS,
            toolCallId: event.toolCallId,
            delta: await this.#options.view.callArguments(event.toolCallId),
            timestamp,
          },
          { type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId, timestamp },
        );
        return out;
      case 'tool:start':
      case 'tool:progress':
        out.push(this.#custom('progress', event));
        return out;
      case 'tool:end':
        this.#unanswered.push({ toolCallId: event.toolCallId, fallback: fallbackResult('done') });
        return out;
      case 'tool:error':
        this.#unanswered.push({ toolCallId: event.toolCallId, fallback: fallbackResult('failed', event.text) });
        out.push(this.#custom('tool_error', event));
        return out;
      case 'approval:required':
        out.push(this.#custom('approval_required', event));
        return out;
      case 'approval:resolved':
        out.push(this.#custom('approval_resolved', event));
        return out;
      case 'gap':
        out.push(this.#custom('gap', event));
        return out;
      case 'run:end':
        await this.#answerCalls(timestamp, out);
        this.#closeStep(timestamp, out);
        out.push(await this.#runFinished(event));
        this.#finished = true;
        return out;
      case 'run:error':
        await this.#answerCalls(timestamp, out);
        this.#closeStep(timestamp, out);
        out.push({ type: EventType.RUN_ERROR, message: event.text, code: event.code, timestamp });
        this.#finished = true;
        return out;
    }
  }

  #messageId(step: number): string {
    return `${this.#options.arbiterRunId}:step-${step}`;
  }

  #custom(name: string, event: ExternalEvent): BaseEvent {
    const { runId: _runId, ...value } = event;
    return { type: EventType.CUSTOM, name: `${agUiCustomPrefix}${name}`, value, timestamp: event.at };
  }

  /** Opens the step of model call `step`, answering the calls of the steps before it first. */
  async #enterStep(step: number, timestamp: number, out: BaseEvent[]): Promise<void> {
    if (this.#step === step) return;
    this.#closeStep(timestamp, out);
    await this.#answerCalls(timestamp, out);
    this.#step = step;
    out.push({ type: EventType.STEP_STARTED, stepName: `model_call_${step}`, timestamp });
  }

  #closeStep(timestamp: number, out: BaseEvent[]): void {
    if (this.#step === undefined) return;
    if (this.#textOpen) {
      this.#textOpen = false;
      out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.#messageId(this.#step), timestamp });
    }
    out.push({ type: EventType.STEP_FINISHED, stepName: `model_call_${this.#step}`, timestamp });
    this.#step = undefined;
  }

  /** `TOOL_CALL_RESULT` for each call that ended since the last model call, as recorded for the model. */
  async #answerCalls(timestamp: number, out: BaseEvent[]): Promise<void> {
    for (const { toolCallId, fallback } of this.#unanswered.splice(0)) {
      const content = (await this.#options.view.callResult(toolCallId)) ?? fallback;
      out.push({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${this.#options.arbiterRunId}:result-${toolCallId}`,
        toolCallId,
        content,
        role: 'tool',
        timestamp,
      });
    }
  }

  async #runFinished(event: ExternalEventOf<'run:end'>): Promise<BaseEvent> {
    const { threadId, runId, arbiterRunId, usageBefore } = this.#options;
    const inputTokens = Math.max(0, event.usage.inputTokens - (usageBefore?.inputTokens ?? 0));
    const outputTokens = Math.max(0, event.usage.outputTokens - (usageBefore?.outputTokens ?? 0));
    const usage: TokenUsage[] = [{ inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }];
    const base = {
      type: EventType.RUN_FINISHED,
      threadId,
      runId,
      result: { stopReason: event.stopReason, steps: event.steps, arbiterRunId },
      usage,
      timestamp: event.at,
    };
    if (event.stopReason === 'aborted') return { ...base, outcome: { type: 'cancelled' } };
    if (event.stopReason === 'awaiting_approval') {
      const interrupts = await this.#options.view.interrupts();
      // An interrupt outcome names at least one interrupt; with none left (decided meanwhile) the run is not waiting.
      if (interrupts.length > 0) return { ...base, outcome: { type: 'interrupt', interrupts } };
    }
    return { ...base, outcome: { type: 'success' } };
  }
}
