import type { Locale } from '../core/locale.js';
import { shownFieldDisplays } from '../tools/field-display.js';
import type { RegisteredTool, ToolSet } from '../tools/tool-registry.js';
import type { AgentEvent } from './agent-event.js';
import type { ExternalEvent } from './external-event.js';
import { eventTexts, type ProgressTable, progressText } from './progress-texts.js';
import { displayArguments } from './sensitive-fields.js';
import { toolFieldPolicies } from './tool-field-policies.js';

export interface EventProjectorOptions {
  /** The tools of the run, for their `sensitive` fields, schemas, bound parameters and `progress` texts. */
  readonly tools?: Pick<ToolSet, 'get'>;
  readonly locale?: Locale;
  readonly progressTable?: ProgressTable;
}

/** Turns an internal event (full detail, for logs) into the external one (for people). */
export type EventProjector = (event: AgentEvent) => ExternalEvent;

const providerNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The projection at the edge of the process. Internal events keep
 * everything for logs and tracing; what leaves is the tool name, a status
 * and a sentence in the person's language. Raw arguments, the model name,
 * session ids, approvers and error messages stay inside; the approval card's
 * arguments lose bound parameters and every sensitive value (the tool's
 * `sensitive` list, `"x-sensitive": true` in its schema, names that read
 * like phone, address or email).
 *
 * @example
 * const project = createEventProjector({ tools: registry, locale: 'zh-CN' });
 * bus.subscribe((event) => sse.send(JSON.stringify(project(event))));
 * // { type: 'tool:start', tool: 'query_order', status: 'running', text: '正在查询订单…', ... }
 */
export function createEventProjector({
  tools,
  locale = 'en',
  progressTable,
}: EventProjectorOptions = {}): EventProjector {
  const texts = eventTexts(locale);
  const policyOf = toolFieldPolicies();
  const toolName = (name: string, registered: RegisteredTool | undefined): string =>
    registered !== undefined || providerNamePattern.test(name) ? name : 'unknown';

  return (event) => {
    const envelope = { runId: event.runId, seq: event.seq, at: event.at };
    switch (event.type) {
      case 'run:start':
      case 'heartbeat':
        return { type: event.type, ...envelope };
      case 'run:end':
        return {
          type: 'run:end',
          ...envelope,
          stopReason: event.stopReason,
          steps: event.steps,
          durationMs: event.durationMs,
          usage: {
            inputTokens: event.usage.inputTokens,
            outputTokens: event.usage.outputTokens,
            totalTokens: event.usage.totalTokens,
          },
          ...(event.cost === undefined ? {} : { cost: event.cost }),
        };
      case 'run:error':
        return { type: 'run:error', ...envelope, code: event.code, text: texts.runFailed };
      case 'model:delta':
        return { type: 'model:delta', ...envelope, step: event.step, text: event.text };
      case 'model:end':
        return {
          type: 'model:end',
          ...envelope,
          step: event.step,
          toolCalls: event.toolCalls,
          usage: {
            inputTokens: event.usage.inputTokens,
            outputTokens: event.usage.outputTokens,
            totalTokens: event.usage.inputTokens + event.usage.outputTokens,
          },
        };
      case 'model:decision':
        return {
          type: 'model:decision',
          ...envelope,
          step: event.step,
          kind: event.decision.kind,
          model: event.decision.model,
          attempt: event.decision.attempt,
          delayMs: event.decision.delayMs,
        };
      case 'gap':
        return { type: 'gap', ...envelope, fromSeq: event.fromSeq, toSeq: event.toSeq, text: texts.missed };
    }
    const registered = tools?.get(event.tool);
    const call = { toolCallId: event.toolCallId, tool: toolName(event.tool, registered) };
    switch (event.type) {
      case 'tool:proposed':
        return { type: 'tool:proposed', ...envelope, step: event.step, ...call, status: 'proposed' };
      case 'approval:required': {
        const shown = displayArguments(event.arguments, policyOf(registered));
        const display = shownFieldDisplays({ display: registered?.definition.display, shown });
        return {
          type: 'approval:required',
          ...envelope,
          step: event.step,
          ...call,
          approvalId: event.approvalId,
          status: 'awaiting_approval',
          arguments: shown,
          ...(Object.keys(display).length === 0 ? {} : { display }),
          reason: event.reason,
          ...(event.expiresAt === undefined ? {} : { expiresAt: new Date(event.expiresAt).toISOString() }),
          text: texts.awaitingApproval,
        };
      }
      case 'approval:resolved':
        return {
          type: 'approval:resolved',
          ...envelope,
          ...call,
          approvalId: event.approvalId,
          status: event.decision,
          text: texts[event.decision],
        };
      case 'tool:start':
        return {
          type: 'tool:start',
          ...envelope,
          step: event.step,
          ...call,
          status: 'running',
          text: progressText({
            tool: call.tool,
            locale,
            progress: registered?.definition.progress,
            ...(progressTable === undefined ? {} : { table: progressTable }),
          }),
        };
      case 'tool:progress':
        return {
          type: 'tool:progress',
          ...envelope,
          step: event.step,
          ...call,
          status: 'running',
          progress: event.progress,
          ...(event.total === undefined ? {} : { total: event.total }),
        };
      case 'tool:end':
        return {
          type: 'tool:end',
          ...envelope,
          step: event.step,
          ...call,
          status: 'done',
          durationMs: event.durationMs,
        };
      case 'tool:error':
        return {
          type: 'tool:error',
          ...envelope,
          step: event.step,
          ...call,
          status: 'failed',
          stage: event.stage,
          code: event.code,
          retryable: event.retryable,
          text: event.retryable ? texts.retrying : texts.stepFailed,
        };
    }
  };
}
