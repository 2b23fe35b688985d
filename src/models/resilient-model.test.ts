import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat-message.js';
import { ModelError, type ModelErrorKind } from '../errors/model-error.js';
import type { Model, ModelRequest, ModelResponse } from './model.js';
import type { ModelDecision } from './model-decision.js';
import { ModelSemaphore } from './model-semaphore.js';
import { ResilientModel, type ResilientModelOptions } from './resilient-model.js';

const messages: ChatMessage[] = [{ role: 'user', content: 'Where is order SO20260901?' }];

type Outcome = ModelError | ModelResponse | ((request: ModelRequest) => Promise<ModelResponse>);

interface ScriptedFailures extends Model {
  readonly requests: ModelRequest[];
}

/** A model that plays the given outcomes in order, then answers "ok". */
function playing(name: string, outcomes: readonly Outcome[]): ScriptedFailures {
  const requests: ModelRequest[] = [];
  return {
    name,
    requests,
    async generate(request) {
      requests.push(request);
      const outcome = outcomes[requests.length - 1] ?? answer('ok');
      if (typeof outcome === 'function') return outcome(request);
      if (ModelError.isInstance(outcome)) throw outcome;
      return outcome;
    },
  };
}

function fail(kind: ModelErrorKind, { status, retryAfterMs }: { status?: number; retryAfterMs?: number } = {}) {
  return new ModelError({ kind, status, retryAfterMs, message: `${kind} at http://127.0.0.1/v1, model m` });
}

function answer(text: string): ModelResponse {
  return {
    message: { role: 'assistant', content: text },
    usage: { inputTokens: 10, outputTokens: 5 },
    finishReason: 'stop',
  };
}

function truncatedCall(usage = { inputTokens: 100, outputTokens: 50 }): ModelResponse {
  return {
    message: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write_note', arguments: '{"text":"lo' } }],
    },
    usage,
    finishReason: 'length',
  };
}

function setup(options: Omit<ResilientModelOptions, 'sleep' | 'semaphore'> & { semaphore?: ModelSemaphore }) {
  const waits: number[] = [];
  const decisions: ModelDecision[] = [];
  const model = new ResilientModel({
    semaphore: new ModelSemaphore({ limit: 4 }),
    ...options,
    policy: { random: () => 0.5, ...options.policy },
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      waits.push(ms);
    },
    onDecision: (decision) => decisions.push(decision),
  });
  return { model, waits, decisions };
}

const summary = (decisions: readonly ModelDecision[]) =>
  decisions.map(({ kind, model, attempt, delayMs, errorKind, reason }) => ({
    kind,
    model,
    attempt,
    delayMs,
    errorKind,
    ...(reason === undefined ? {} : { reason }),
  }));

describe('ResilientModel', () => {
  it('answers like the primary when nothing fails, naming the model that answered', async () => {
    const primary = playing('gpt-4o', []);
    const { model, decisions } = setup({ primary });
    const response = await model.generate({ messages, tools: [] });
    expect(response).toEqual({ ...answer('ok'), model: 'gpt-4o' });
    expect(model.name).toBe('gpt-4o');
    expect(decisions).toEqual([]);
  });

  it('retries network errors and timeouts with growing backoff, then returns the one result', async () => {
    const primary = playing('gpt-4o', [fail('network'), fail('timeout')]);
    const { model, waits, decisions } = setup({ primary });
    const response = await model.generate({ messages, tools: [] });
    expect(response.message.content).toBe('ok');
    expect(primary.requests).toHaveLength(3);
    expect(waits).toEqual([125, 250]);
    expect(summary(decisions)).toEqual([
      { kind: 'retry', model: 'gpt-4o', attempt: 1, delayMs: 125, errorKind: 'network' },
      { kind: 'retry', model: 'gpt-4o', attempt: 2, delayMs: 250, errorKind: 'timeout' },
    ]);
  });

  it('gives up after three tries without a fallback and rethrows the last error', async () => {
    const last = fail('network');
    const primary = playing('gpt-4o', [fail('network'), fail('network'), last]);
    const { model, decisions } = setup({ primary });
    await expect(model.generate({ messages, tools: [] })).rejects.toBe(last);
    expect(primary.requests).toHaveLength(3);
    expect(summary(decisions).at(-1)).toEqual({
      kind: 'give_up',
      model: 'gpt-4o',
      attempt: 3,
      delayMs: 0,
      errorKind: 'network',
      reason: 'attempts_exhausted',
    });
  });

  it('switches to the fallback after 5xx three times, and reports the switch', async () => {
    const primary = playing('gpt-4o', [
      fail('server', { status: 503 }),
      fail('server', { status: 502 }),
      fail('server', { status: 500 }),
    ]);
    const fallback = playing('gpt-4o-mini', []);
    const { model, decisions } = setup({ primary, fallback });
    const response = await model.generate({ messages, tools: [] });
    expect(response.model).toBe('gpt-4o-mini');
    expect(fallback.requests).toHaveLength(1);
    expect(decisions.at(-1)).toEqual({
      kind: 'fallback',
      model: 'gpt-4o',
      attempt: 3,
      delayMs: 0,
      errorKind: 'server',
      status: 500,
      reason: 'attempts_exhausted',
      nextModel: 'gpt-4o-mini',
      maxOutputTokens: undefined,
      concurrencyLimit: undefined,
      discardsStreamedText: false,
    });
  });

  it('never retries nor falls back on a request or configuration error', async () => {
    for (const [kind, status] of [
      ['authentication', 401],
      ['authentication', 403],
      ['request', 400],
      ['request', 404],
    ] as const) {
      const error = fail(kind, { status });
      const primary = playing('gpt-4o', [error]);
      const fallback = playing('gpt-4o-mini', []);
      const { model, decisions } = setup({ primary, fallback });
      await expect(model.generate({ messages, tools: [] })).rejects.toBe(error);
      expect(primary.requests).toHaveLength(1);
      expect(fallback.requests).toHaveLength(0);
      expect(summary(decisions)).toEqual([
        { kind: 'give_up', model: 'gpt-4o', attempt: 1, delayMs: 0, errorKind: kind, reason: 'not_retryable' },
      ]);
    }
  });

  it('waits the Retry-After of a 429 and lowers the shared concurrency limit', async () => {
    const semaphore = new ModelSemaphore({ limit: 8 });
    const primary = playing('gpt-4o', [fail('rate_limited', { status: 429, retryAfterMs: 1_500 })]);
    const { model, waits, decisions } = setup({ primary, semaphore });
    await model.generate({ messages, tools: [] });
    expect(waits).toEqual([1_500]);
    expect(semaphore.limit).toBe(4);
    expect(decisions[0]).toMatchObject({ kind: 'wait', delayMs: 1_500, concurrencyLimit: 4, status: 429 });
  });

  it('keeps all waiting of one call within the budget, across the primary and the fallback', async () => {
    const primary = playing('gpt-4o', [
      fail('server', { retryAfterMs: 4_000 }),
      fail('server', { retryAfterMs: 4_000 }),
      fail('server'),
    ]);
    const fallback = playing('gpt-4o-mini', [fail('server', { retryAfterMs: 3_000 })]);
    const { model, waits, decisions } = setup({ primary, fallback });
    await expect(model.generate({ messages, tools: [] })).rejects.toThrow(ModelError);
    expect(waits).toEqual([4_000, 4_000]);
    expect(summary(decisions).map(({ kind, reason }) => [kind, reason])).toEqual([
      ['retry', undefined],
      ['retry', undefined],
      ['fallback', 'attempts_exhausted'],
      ['give_up', 'retry_after_too_long'],
    ]);
  });

  it('retries a truncated tool call once with a higher output limit and counts both usages', async () => {
    const primary = playing('gpt-4o', [truncatedCall()]);
    const { model, decisions } = setup({ primary });
    const response = await model.generate({ messages, tools: [] });
    expect(primary.requests.map((request) => request.maxOutputTokens)).toEqual([undefined, 8_192]);
    expect(response.usage).toEqual({ inputTokens: 110, outputTokens: 55 });
    expect(summary(decisions)).toEqual([
      { kind: 'expand_output', model: 'gpt-4o', attempt: 1, delayMs: 0, errorKind: 'truncated' },
    ]);
    expect(decisions[0]?.maxOutputTokens).toBe(8_192);
  });

  it('doubles a given output limit, and at the ceiling asks for shorter output instead', async () => {
    const doubled = playing('gpt-4o', [truncatedCall()]);
    await setup({ primary: doubled }).model.generate({ messages, tools: [], maxOutputTokens: 1_000 });
    expect(doubled.requests.map((request) => request.maxOutputTokens)).toEqual([1_000, 2_000]);

    const atCeiling = playing('gpt-4o', [truncatedCall()]);
    await setup({ primary: atCeiling }).model.generate({ messages, tools: [], maxOutputTokens: 8_192 });
    expect(atCeiling.requests[1]?.maxOutputTokens).toBe(8_192);
    expect(atCeiling.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content:
        'Your last reply was cut off at the output limit while writing tool call arguments. Call the tool again with shorter arguments, or make fewer calls at once.',
    });
    expect(atCeiling.requests[0]?.messages).toEqual(messages);
  });

  it('does not retry a truncated tool call twice: the second truncated response is returned as it is', async () => {
    const primary = playing('gpt-4o', [truncatedCall(), truncatedCall()]);
    const { model, decisions } = setup({ primary });
    const response = await model.generate({ messages, tools: [] });
    expect(primary.requests).toHaveLength(2);
    expect(response.finishReason).toBe('length');
    expect(response.usage).toEqual({ inputTokens: 200, outputTokens: 100 });
    expect(summary(decisions).map(({ kind, reason }) => [kind, reason])).toEqual([
      ['expand_output', undefined],
      ['give_up', 'still_truncated'],
    ]);
  });

  it('returns a truncated text answer without retrying: only cut-off tool arguments are retried', async () => {
    const truncatedText: ModelResponse = { ...answer('The order shipped on'), finishReason: 'length' };
    const primary = playing('gpt-4o', [truncatedText]);
    const { model, decisions } = setup({ primary });
    expect((await model.generate({ messages, tools: [] })).finishReason).toBe('length');
    expect(decisions).toEqual([]);
  });

  it('tells the request listener too, and says when streamed text must be dropped', async () => {
    const primary = playing('gpt-4o', [
      async (request) => {
        request.onTextDelta?.('The order');
        throw fail('network');
      },
    ]);
    const { model } = setup({ primary });
    const deltas: string[] = [];
    const fromRequest: ModelDecision[] = [];
    await model.generate({
      messages,
      tools: [],
      onTextDelta: (text) => deltas.push(text),
      onDecision: (decision) => fromRequest.push(decision),
    });
    expect(deltas).toEqual(['The order']);
    expect(fromRequest).toMatchObject([{ kind: 'retry', discardsStreamedText: true }]);
    expect(primary.requests[0]).not.toHaveProperty('onDecision');
  });

  it('is not derailed by a listener that throws', async () => {
    const primary = playing('gpt-4o', [fail('network')]);
    const model = new ResilientModel({
      primary,
      semaphore: new ModelSemaphore({ limit: 1 }),
      sleep: async () => undefined,
      onDecision: () => {
        throw new Error('listener bug');
      },
    });
    expect((await model.generate({ messages, tools: [] })).message.content).toBe('ok');
  });

  it('stops waiting at once when the caller aborts, rejecting with the abort reason', async () => {
    const primary = playing('gpt-4o', [fail('rate_limited', { retryAfterMs: 5_000 })]);
    const model = new ResilientModel({ primary, semaphore: new ModelSemaphore({ limit: 1 }) });
    const controller = new AbortController();
    const started = performance.now();
    const pending = model.generate({ messages, tools: [], signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 20);
    await expect(pending).rejects.toThrow('user left');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(primary.requests).toHaveLength(1);
  });

  it('holds a semaphore slot per try, never while waiting', async () => {
    const semaphore = new ModelSemaphore({ limit: 1 });
    const seen: number[] = [];
    const primary = playing('gpt-4o', [fail('network')]);
    const model = new ResilientModel({
      primary,
      semaphore,
      sleep: async () => {
        seen.push(semaphore.inFlight);
      },
    });
    await model.generate({ messages, tools: [] });
    expect(seen).toEqual([0]);
    expect(semaphore.inFlight).toBe(0);
  });

  it('says it sends strict tools when one of its models does', () => {
    const strictModel = Object.assign(playing('gpt-4o', []), { strictTools: true });
    expect(setup({ primary: playing('gpt-4o', []) }).model.strictTools).toBe(false);
    expect(setup({ primary: playing('gpt-4o', []), fallback: strictModel }).model.strictTools).toBe(true);
  });

  it('passes errors that are not model errors straight through, untouched', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    const primary: Model = {
      name: 'broken',
      generate: async () => {
        throw bug;
      },
    };
    const { model, decisions } = setup({ primary });
    await expect(model.generate({ messages, tools: [] })).rejects.toBe(bug);
    expect(decisions).toEqual([]);
  });
});
