import { ConfigurationError } from '../errors/configuration-error.js';
import type { ModelRequest, ModelResponse } from '../models/model.js';
import { costOf } from '../models/pricing.js';
import { isRoutedToolSet } from '../routing/routed-tool-set.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { commitStep } from './commit-step.js';
import { durableStep } from './durable-step.js';
import type { RunProgress } from './run-progress.js';
import type { RunRuntime } from './run-runtime.js';
import { withUniqueCallIds } from './with-unique-call-ids.js';

/** `commitStep`'s options for the run's answer. */
const endsTheRun = { endsRun: true } as const;

/**
 * One model call of the run: the request prepared by the context manager
 * (compressed past its threshold, a summary's tokens counted in the
 * budget), the model called with the mounted tools, its usage and cost
 * added to the run's, `model:end` emitted, and its message (every tool call
 * id unique in the conversation) committed. Throws `ConfigurationError` when a cost
 * budget is set and the answering model has no price.
 *
 * @example
 * progress.steps += 1;
 * const response = await takeModelTurn(runtime, progress, tools);
 */
export async function takeModelTurn(
  runtime: RunRuntime,
  progress: RunProgress,
  tools: ToolSet,
): Promise<ModelResponse> {
  const { model, emitter, context, control } = runtime;
  const { usage } = progress;
  const step = progress.steps;
  const prepared =
    context === undefined
      ? undefined
      : await context.prepare({
          messages: progress.conversation,
          tools: tools.specs,
          ...(runtime.pinned === undefined ? {} : { pinned: runtime.pinned }),
          signal: control.signal,
        });
  // A summary made to fit the window is a model call of this run: it counts in the budget.
  usage.inputTokens += prepared?.usage?.inputTokens ?? 0;
  usage.outputTokens += prepared?.usage?.outputTokens ?? 0;
  const request: ModelRequest = {
    messages: prepared?.messages ?? progress.conversation,
    tools: tools.specs,
    signal: control.signal,
    onTextDelta: (text) => emitter.emit({ type: 'model:delta', step, text }),
    onDecision: (decision) => emitter.emit({ type: 'model:decision', step, decision }),
  };
  const { steps } = runtime;
  const response =
    steps === undefined
      ? await model.generate(request)
      : await durableStep({ runtime, steps, name: `model:${step}`, run: () => model.generate(request) });
  if (prepared !== undefined) context?.observe({ prepared, usage: response.usage });
  usage.inputTokens += response.usage.inputTokens;
  usage.outputTokens += response.usage.outputTokens;
  usage.cachedInputTokens += response.usage.cachedInputTokens ?? 0;
  if (runtime.prices !== undefined) {
    const answeredBy = response.model ?? model.name;
    const priced = costOf({ model: answeredBy, usage: response.usage, prices: runtime.prices });
    if (priced === undefined && Number.isFinite(runtime.costBudget)) {
      throw new ConfigurationError({
        setting: 'limits.costBudget',
        message: `no price for model ${answeredBy} in the price table: limits.costBudget cannot be enforced`,
      });
    }
    progress.cost += priced?.total ?? 0;
  }
  const modelName = response.model ?? model.name;
  const toolCalls = response.message.tool_calls?.length ?? 0;
  if (isRoutedToolSet(tools)) {
    emitter.emit({
      type: 'model:end',
      step,
      model: modelName,
      usage: response.usage,
      finishReason: response.finishReason,
      toolCalls,
      routing: tools.routing,
    });
  } else {
    emitter.emitDraft({
      runId: '',
      seq: 0,
      at: 0,
      type: 'model:end',
      step,
      model: modelName,
      usage: response.usage,
      finishReason: response.finishReason,
      toolCalls,
    });
  }
  const message = withUniqueCallIds(response.message, progress.callIds);
  // An answer that calls no tool is the run's last commit (the loop ends the run after it, whatever the stop).
  const committing = commitStep(runtime, progress, [message], toolCalls === 0 ? endsTheRun : undefined);
  if (committing !== undefined) await committing;
  if (message.content !== null && message.content !== '') progress.lastText = message.content;
  return message === response.message ? response : { ...response, message };
}
