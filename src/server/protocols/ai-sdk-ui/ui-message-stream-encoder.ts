import type { StopReason } from '../../../core/stop-reason.js';
import type { ExternalEvent, ExternalEventOf } from '../../../events/external-event.js';
import type { ToolCallFacts, ToolFactsSource } from './run-tool-facts.js';
import type { ArbiterMessageMetadata, UiFinishReason, UiMessageChunk } from './ui-message-chunk.js';

/**
 * Who reads the stream. An `approver` (who may decide the run's approvals)
 * gets the protocol's `tool-approval-request`; a `customer` gets a
 * `data-approval` part saying the call waits for a person.
 */
export type ChatAudience = 'customer' | 'approver';

export interface UiMessageStreamEncoderOptions {
  /** The assistant message's id (the run's id: a replay rebuilds the same message). */
  readonly messageId: string;
  readonly runId: string;
  readonly audience: ChatAudience;
  /** The run's tool calls, their inputs and results, as committed. */
  readonly facts: ToolFactsSource;
  /** Events up to this seq only build state: the client has them already. Default 0. */
  readonly sentThrough?: number;
  /**
   * A `run:end` with `awaiting_approval` at or after this seq finishes the
   * stream; earlier ones (the run was resumed since) and every one when
   * `undefined` only close the step, and the stream waits for the run to go on.
   */
  readonly finishAwaitingFrom?: number | undefined;
}

type CallState = 'input' | 'settled' | 'answered';

interface CallRecord {
  readonly tool: string;
  state: CallState;
  /** How the call ended: its result or arbiter's refusal goes out at the end of its step. */
  outcome: 'ok' | 'error' | undefined;
  /** The person-facing sentence of a `tool:error`, for a refusal whose message is not committed. */
  errorText: string | undefined;
  progress: Record<string, unknown> | undefined;
}

/** The stop reasons as the AI SDK's finish reasons. */
const finishReasons: Readonly<Record<StopReason, UiFinishReason>> = {
  completed: 'stop',
  awaiting_approval: 'tool-calls',
  token_budget: 'length',
  max_steps: 'other',
  cost_budget: 'other',
  deadline: 'other',
  repeated_call: 'other',
  tool_failures: 'other',
  aborted: 'other',
  error: 'error',
};

/**
 * Turns one run's events (as they leave the process: `ExternalEvent`) into
 * the AI SDK's UI message stream, event by event, for one reader:
 *
 * - `start` (message id = run id, metadata `{ runId }`), then per model call
 *   `start-step` … `finish-step`;
 * - text deltas as `text-start` / `text-delta` / `text-end`;
 * - each proposed call as `tool-input-start` and `tool-input-available`
 *   (inputs as the approval card shows them: bound parameters removed,
 *   sensitive values `[redacted]`), its answer at the end of its step as
 *   `tool-output-available`, or `tool-output-error` carrying arbiter's
 *   message to the model (a validation rejection, a refusal);
 * - progress as `data-progress` parts (one per call, updated in place:
 *   running, done, failed), with arbiter's sentence for people;
 * - a call waiting for a person as `tool-approval-request` (approver) or a
 *   `data-approval` part (customer), updated when decided; a rejected call
 *   as `tool-output-denied`;
 * - the end: `finish` with the stop reason in `messageMetadata`, after an
 *   `abort` part when the run was aborted, or an `error` part when it failed.
 *
 * arbiter sends no reasoning: its models' answers carry none.
 *
 * @example
 * const encoder = new UiMessageStreamEncoder({ messageId: runId, runId, audience: 'customer', facts });
 * for (const chunk of encoder.start()) write(chunk);
 * for (const event of events) for (const chunk of await encoder.encode(event)) write(chunk);
 */
export class UiMessageStreamEncoder {
  readonly #options: UiMessageStreamEncoderOptions;
  readonly #calls = new Map<string, CallRecord>();
  /** Calls whose answer goes out at the end of the step, in the order they ended. */
  #unanswered: string[] = [];
  #facts: ReadonlyMap<string, ToolCallFacts> = new Map();
  #step: number | undefined;
  #textId: string | undefined;
  #done = false;

  constructor(options: UiMessageStreamEncoderOptions) {
    this.#options = options;
  }

  /** True once `finish` has been produced: nothing more belongs to this stream. */
  get done(): boolean {
    return this.#done;
  }

  /** The stream's first chunk. */
  start(): UiMessageChunk[] {
    return [{ type: 'start', messageId: this.#options.messageId, messageMetadata: { runId: this.#options.runId } }];
  }

  /**
   * The chunks for one event, in order; none for an event the client
   * already has (`sentThrough`). A promise only when the event needs the
   * run's tool calls read first (a new call, or the end of a step whose
   * answers were not read yet).
   */
  encode(event: ExternalEvent): UiMessageChunk[] | Promise<UiMessageChunk[]> {
    if (this.#done) return [];
    if (!this.#needsFacts(event)) return this.#encodeNow(event);
    return Promise.resolve(this.#options.facts.load()).then((facts) => {
      this.#facts = facts;
      return this.#encodeNow(event);
    });
  }

  /**
   * The end of a stream whose run's log holds no terminal event (a run lost
   * by a process that died): `finish` with the status the server recorded.
   */
  async finishWithout(stopReason: StopReason): Promise<UiMessageChunk[]> {
    if (this.#done) return [];
    if (this.#unansweredUnread()) this.#facts = await this.#options.facts.load();
    const chunks: UiMessageChunk[] = [];
    this.#closeStep(chunks, { final: true });
    this.#finish(chunks, stopReason, {});
    return chunks;
  }

  #encodeNow(event: ExternalEvent): UiMessageChunk[] {
    const chunks: UiMessageChunk[] = [];
    this.#encode(event, chunks);
    return event.seq <= (this.#options.sentThrough ?? 0) ? [] : chunks;
  }

  /** Whether `event` needs the run's tool calls read: a call not seen yet, or a step ending with unread answers. */
  #needsFacts(event: ExternalEvent): boolean {
    if (event.type === 'tool:proposed' && !this.#calls.has(event.toolCallId) && !this.#facts.has(event.toolCallId)) {
      return true;
    }
    const closes =
      event.type === 'run:end' ||
      event.type === 'run:error' ||
      ('step' in event && this.#step !== undefined && event.step !== this.#step);
    return closes && this.#unansweredUnread();
  }

  #unansweredUnread(): boolean {
    return this.#unanswered.some((id) => this.#facts.get(id)?.result === undefined);
  }

  #encode(event: ExternalEvent, chunks: UiMessageChunk[]): void {
    switch (event.type) {
      case 'run:start':
      case 'heartbeat':
      case 'gap':
        return;
      case 'model:decision':
        this.#openStep(event.step, chunks);
        chunks.push({
          type: 'data-model-decision',
          data: { kind: event.kind, attempt: event.attempt, delayMs: event.delayMs },
          transient: true,
        });
        return;
      case 'model:delta':
        this.#openStep(event.step, chunks);
        if (this.#textId === undefined) {
          this.#textId = `text-${event.seq}`;
          chunks.push({ type: 'text-start', id: this.#textId });
        }
        chunks.push({ type: 'text-delta', id: this.#textId, delta: event.text });
        return;
      case 'model:end':
        this.#openStep(event.step, chunks);
        this.#endText(chunks);
        return;
      case 'tool:proposed':
        this.#openStep(event.step, chunks);
        this.#propose(event, chunks);
        return;
      case 'approval:required':
        this.#openStep(event.step, chunks);
        if (this.#options.audience === 'approver') {
          chunks.push({ type: 'tool-approval-request', approvalId: event.approvalId, toolCallId: event.toolCallId });
        } else {
          const data = {
            tool: event.tool,
            status: event.status,
            text: event.text,
            reason: event.reason,
            ...(event.expiresAt === undefined ? {} : { expiresAt: event.expiresAt }),
          };
          chunks.push(approvalPart(event.toolCallId, data));
        }
        return;
      case 'approval:resolved':
        if (this.#options.audience === 'customer') {
          chunks.push(approvalPart(event.toolCallId, { tool: event.tool, status: event.status, text: event.text }));
        }
        if (event.status !== 'approved') {
          const call = this.#calls.get(event.toolCallId);
          if (call !== undefined && call.state !== 'answered') {
            call.state = 'answered';
            chunks.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
          }
        }
        return;
      case 'tool:start':
        this.#openStep(event.step, chunks);
        this.#progress(event.toolCallId, { tool: event.tool, status: 'running', text: event.text }, chunks);
        return;
      case 'tool:end':
        this.#openStep(event.step, chunks);
        this.#progress(event.toolCallId, { status: 'done' }, chunks);
        this.#settle(event.toolCallId, 'ok', undefined);
        return;
      case 'tool:error':
        this.#openStep(event.step, chunks);
        if (this.#calls.get(event.toolCallId)?.progress !== undefined) {
          this.#progress(event.toolCallId, { status: 'failed', text: event.text }, chunks);
        }
        this.#settle(event.toolCallId, 'error', event.text);
        return;
      case 'run:end': {
        const { finishAwaitingFrom } = this.#options;
        const final =
          event.stopReason !== 'awaiting_approval' ||
          (finishAwaitingFrom !== undefined && event.seq >= finishAwaitingFrom);
        this.#closeStep(chunks, { final });
        if (!final) {
          chunks.push({
            type: 'message-metadata',
            messageMetadata: { runId: event.runId, stopReason: event.stopReason },
          });
          return;
        }
        if (event.stopReason === 'aborted') chunks.push({ type: 'abort', reason: 'the run was aborted' });
        this.#finish(chunks, event.stopReason, { steps: event.steps, usage: event.usage });
        return;
      }
      case 'run:error':
        this.#closeStep(chunks, { final: true });
        chunks.push({ type: 'error', errorText: event.text });
        this.#finish(chunks, 'error', { errorCode: event.code });
        return;
    }
  }

  #propose(event: ExternalEventOf<'tool:proposed'>, chunks: UiMessageChunk[]): void {
    if (this.#calls.has(event.toolCallId)) return;
    const facts = this.#facts.get(event.toolCallId);
    this.#calls.set(event.toolCallId, {
      tool: event.tool,
      state: 'input',
      outcome: undefined,
      errorText: undefined,
      progress: undefined,
    });
    chunks.push({ type: 'tool-input-start', toolCallId: event.toolCallId, toolName: event.tool });
    chunks.push({
      type: 'tool-input-available',
      toolCallId: event.toolCallId,
      toolName: event.tool,
      input: facts?.input ?? null,
    });
  }

  #settle(toolCallId: string, outcome: 'ok' | 'error', errorText: string | undefined): void {
    const call = this.#calls.get(toolCallId);
    // A call the client never saw proposed (it began before this stream's events) has no part to answer.
    if (call === undefined || call.state === 'answered') return;
    call.state = 'settled';
    call.outcome = outcome;
    call.errorText = errorText;
    if (!this.#unanswered.includes(toolCallId)) this.#unanswered.push(toolCallId);
  }

  #progress(toolCallId: string, change: Record<string, unknown>, chunks: UiMessageChunk[]): void {
    const call = this.#calls.get(toolCallId);
    const data = { toolCallId, ...call?.progress, ...change };
    if (call !== undefined) call.progress = data;
    chunks.push({ type: 'data-progress', id: `progress-${toolCallId}`, data });
  }

  #openStep(step: number, chunks: UiMessageChunk[]): void {
    if (this.#step === step) return;
    if (this.#step !== undefined) this.#closeStep(chunks, { final: false });
    this.#step = step;
    chunks.push({ type: 'start-step' });
  }

  /** Ends the open text, answers the step's settled calls, and closes the step. */
  #closeStep(chunks: UiMessageChunk[], { final }: { final: boolean }): void {
    this.#endText(chunks);
    this.#answer(chunks, { final });
    if (this.#step !== undefined) chunks.push({ type: 'finish-step' });
    this.#step = undefined;
  }

  /** Answers the settled calls whose result has been read (`#needsFacts` had it read); at the end, all of them. */
  #answer(chunks: UiMessageChunk[], { final }: { final: boolean }): void {
    if (this.#unanswered.length === 0) return;
    const waiting: string[] = [];
    for (const toolCallId of this.#unanswered) {
      const call = this.#calls.get(toolCallId);
      if (call === undefined || call.state !== 'settled') continue;
      const facts = this.#facts.get(toolCallId);
      if (facts?.result === undefined && !final) {
        waiting.push(toolCallId);
        continue;
      }
      call.state = 'answered';
      if (call.outcome === 'ok') {
        chunks.push({ type: 'tool-output-available', toolCallId, output: facts?.output ?? null });
      } else {
        const errorText = facts?.result ?? call.errorText ?? 'the call failed';
        chunks.push({ type: 'tool-output-error', toolCallId, errorText });
      }
    }
    this.#unanswered = waiting;
  }

  #endText(chunks: UiMessageChunk[]): void {
    if (this.#textId === undefined) return;
    chunks.push({ type: 'text-end', id: this.#textId });
    this.#textId = undefined;
  }

  #finish(
    chunks: UiMessageChunk[],
    stopReason: StopReason,
    extra: Omit<ArbiterMessageMetadata, 'runId' | 'stopReason'>,
  ): void {
    chunks.push({
      type: 'finish',
      finishReason: finishReasons[stopReason],
      messageMetadata: { runId: this.#options.runId, stopReason, ...extra },
    });
    this.#done = true;
  }
}

function approvalPart(toolCallId: string, data: Record<string, unknown>): UiMessageChunk {
  return { type: 'data-approval', id: `approval-${toolCallId}`, data: { toolCallId, ...data } };
}
