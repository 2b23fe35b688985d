import { type Artifact, type Message, type Part, TaskState } from '@a2a-js/sdk';
import type { Locale } from '../../core/locale.js';
import { FatalToolError } from '../../errors/fatal-tool-error.js';
import { RetryableToolError } from '../../errors/retryable-tool-error.js';
import { a2aTexts } from './a2a-texts.js';
import { plainA2aId } from './plain-a2a-id.js';

/** What a call has seen of its remote task when the task stops: its last state, message and artifacts. */
export interface A2aTaskView {
  readonly taskId: string;
  readonly state: TaskState;
  /** The message of the last status (an agent's question, its reason for failing). */
  readonly statusMessage: Message | undefined;
  readonly artifacts: readonly Artifact[];
}

/** The tool result of a completed task. */
export interface A2aAnswer {
  /** The answer's text: the artifacts' text parts (data parts as JSON), else the final status message's. */
  readonly answer: string;
  /** The remote task's id, for a person looking it up there; left out when it is not a plain id (`plainA2aId`). */
  readonly taskId?: string;
}

const approvalId = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What a remote task that stopped means for the calling tool: completed is
 * the result (`A2aAnswer`); anything else is a tool error the model can act
 * on. input-required is retryable (a message that gives what the agent
 * asks for may go through), unless it waits for a person's approval on the
 * agent's side (arbiter agents list them in `metadata.approvals`): that,
 * auth-required, failed, rejected and canceled are fatal, told once. What
 * the agent said is quoted only for a `trusted` agent: an untrusted agent's
 * text reaches the model only as a result, which marks the conversation.
 *
 * @example
 * const answer = a2aTaskOutcome({ view, agent: 'billing', trusted: false, locale: 'en' });
 */
export function a2aTaskOutcome({
  view,
  agent,
  trusted,
  locale,
}: {
  view: A2aTaskView;
  agent: string;
  trusted: boolean;
  locale: Locale;
}): A2aAnswer {
  const texts = a2aTexts(locale);
  const taskId = plainA2aId(view.taskId);
  const task = taskId === undefined ? {} : { taskId };
  const spoken = partsText(view.statusMessage?.parts ?? []);
  const detail = trusted && spoken !== '' ? cut(spoken) : undefined;
  const withDetail = detail === undefined ? {} : { detail };
  switch (view.state) {
    case TaskState.TASK_STATE_COMPLETED: {
      const answer = partsText(view.artifacts.flatMap((artifact) => artifact.parts));
      return { answer: answer !== '' ? answer : spoken !== '' ? spoken : texts.emptyAnswer({ agent }), ...task };
    }
    case TaskState.TASK_STATE_INPUT_REQUIRED: {
      const listed: unknown = view.statusMessage?.metadata?.approvals;
      if (Array.isArray(listed) && listed.length > 0) {
        const approvals = listed.flatMap((entry: unknown) => {
          const id = typeof entry === 'object' && entry !== null ? (entry as { approvalId?: unknown }).approvalId : '';
          return typeof id === 'string' && approvalId.test(id) ? [id] : [];
        });
        throw new FatalToolError({
          code: 'a2a_awaiting_approval',
          message: texts.awaitingApproval({ agent, ...task, approvals, ...withDetail }),
        });
      }
      throw new RetryableToolError({
        code: 'a2a_input_required',
        message: texts.inputRequired({ agent, ...task, ...withDetail }),
        field: 'message',
      });
    }
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      throw new FatalToolError({ code: 'a2a_auth_required', message: texts.authRequired({ agent, ...task }) });
    case TaskState.TASK_STATE_REJECTED:
      throw new FatalToolError({
        code: 'a2a_task_rejected',
        message: texts.rejected({ agent, ...task, ...withDetail }),
      });
    case TaskState.TASK_STATE_CANCELED:
      throw new FatalToolError({ code: 'a2a_task_canceled', message: texts.canceled({ agent, ...task }) });
    default:
      throw new FatalToolError({ code: 'a2a_task_failed', message: texts.failed({ agent, ...task, ...withDetail }) });
  }
}

/**
 * Whether a task in `state` goes no further without someone: final, or
 * waiting for input or credentials.
 *
 * @example
 * isStoppedTaskState(TaskState.TASK_STATE_INPUT_REQUIRED); // true
 */
export function isStoppedTaskState(state: TaskState): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED ||
    state === TaskState.TASK_STATE_INPUT_REQUIRED ||
    state === TaskState.TASK_STATE_AUTH_REQUIRED
  );
}

/** The text of parts: text as it is, data as JSON; files named, not fetched. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .map((part) => {
      const content = part.content;
      if (content === undefined) return '';
      if (content.$case === 'text') return content.value;
      if (content.$case === 'data') return JSON.stringify(content.value);
      if (content.$case === 'url') return `[file ${part.filename || content.value}]`;
      return `[file ${part.filename || part.mediaType}, not shown]`;
    })
    .filter((text) => text !== '')
    .join('\n\n');
}

function cut(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
