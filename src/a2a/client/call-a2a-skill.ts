import { type Artifact, type Message, Role, type StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ToolContext } from '../../tools/tool-types.js';
import { A2aConnectionError } from './a2a-connection-error.js';
import { type A2aTaskView, isStoppedTaskState, partsText } from './a2a-task-outcome.js';

/**
 * Sends one message to an agent over the SDK's streaming call and follows
 * its task until it stops (`isStoppedTaskState`): each task or status event
 * is reported as progress (`context.reportProgress`: the state, and what
 * the agent said, cut short); artifacts are gathered. A stream that ends
 * before the task stopped (an agent that answers a repeated message with
 * the task as it stands) is followed with `tasks/get` until it does. An
 * agent that answers with a message instead of a task has completed.
 * `onTask` is told the task's id as soon as the agent names it, so a call
 * whose answer is then lost can still be asked about.
 * Anything the SDK or the transport throws, unless `signal` aborted it,
 * rejects with `A2aConnectionError`.
 *
 * @example
 * const view = await callA2aSkill({ client, agent: 'billing', skill: 'apply_refund', text, messageId, context, signal });
 */
export async function callA2aSkill({
  client,
  agent,
  skill,
  text,
  messageId,
  contextId = '',
  onTask,
  context,
  signal,
  pollMs = 250,
}: {
  client: Client;
  agent: string;
  skill: string;
  text: string;
  messageId: string;
  /** The context to send the message in (`a2aContextId`); empty: the agent starts one. */
  contextId?: string;
  onTask?: (taskId: string) => void;
  context: ToolContext;
  /** The run's signal and the call's time limit together. */
  signal: AbortSignal;
  pollMs?: number;
}): Promise<A2aTaskView> {
  let taskId = '';
  let state = TaskState.TASK_STATE_SUBMITTED;
  let statusMessage: Message | undefined;
  const artifacts = new Map<string, Artifact>();
  let reports = 0;
  const report = (message: Message | undefined) => {
    reports += 1;
    const said = partsText(message?.parts ?? []);
    const name = TaskState[state]?.replace(/^TASK_STATE_/, '').toLowerCase() ?? String(state);
    context.reportProgress?.({
      progress: reports,
      message: said === '' ? name : `${name}: ${said.length > 200 ? `${said.slice(0, 200)}…` : said}`,
    });
  };
  const named = (id: string) => {
    if (id === '' || id === taskId) return;
    taskId = id;
    onTask?.(id);
  };
  const take = (event: StreamResponse) => {
    const payload = event.payload;
    if (payload === undefined) return;
    if (payload.$case === 'task') {
      named(payload.value.id);
      state = payload.value.status?.state ?? state;
      statusMessage = payload.value.status?.message;
      for (const artifact of payload.value.artifacts) artifacts.set(artifact.artifactId, artifact);
      report(statusMessage);
    } else if (payload.$case === 'statusUpdate') {
      named(payload.value.taskId);
      state = payload.value.status?.state ?? state;
      if (payload.value.status?.message !== undefined) statusMessage = payload.value.status.message;
      report(payload.value.status?.message);
    } else if (payload.$case === 'artifactUpdate' && payload.value.artifact !== undefined) {
      const artifact = payload.value.artifact;
      const earlier = artifacts.get(artifact.artifactId);
      artifacts.set(
        artifact.artifactId,
        payload.value.append && earlier !== undefined
          ? { ...artifact, parts: [...earlier.parts, ...artifact.parts] }
          : artifact,
      );
    } else if (payload.$case === 'message') {
      taskId = payload.value.taskId;
      state = TaskState.TASK_STATE_COMPLETED;
      statusMessage = payload.value;
    }
  };
  const view = (): A2aTaskView => ({ taskId, state, statusMessage, artifacts: [...artifacts.values()] });
  try {
    const stream = client.sendMessageStream(
      {
        tenant: '',
        message: {
          messageId,
          contextId,
          taskId: '',
          role: Role.ROLE_USER,
          parts: [
            { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined },
          ],
          // The skill the tool stands for, and the language to answer in (an arbiter agent runs in it).
          metadata: { skill, locale: context.locale },
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      },
      { signal },
    );
    for await (const event of stream) {
      take(event);
      if (isStoppedTaskState(state)) return view();
    }
    if (taskId === '') throw new Error('the stream ended before the agent named a task');
    while (!isStoppedTaskState(state)) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      signal.throwIfAborted();
      const task = await client.getTask({ tenant: '', id: taskId }, { signal });
      // Taken (and reported) only when it moved: polling is not progress.
      if ((task.status?.state ?? state) !== state) take({ payload: { $case: 'task', value: task } });
    }
    return view();
  } catch (error) {
    if (signal.aborted) throw error;
    throw new A2aConnectionError({
      agent,
      message: `A2A agent "${agent}": the call of skill "${skill}" failed on the way (${describe(error)}); it may have acted, so it was not repeated`,
      cause: error,
    });
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
