import { type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { Locale } from '../../core/locale.js';
import type { ReconcileAnswer } from '../../tools/tool-types.js';
import { type A2aAnswer, a2aTaskOutcome } from './a2a-task-outcome.js';

/** At most this many tasks are read back for one call's context (one page of `ListTasks`). */
const pageSize = 100;

/**
 * Asks an agent what became of a write call whose answer was lost (it timed
 * out, the process died), for the tool's `reconcile`:
 *
 * 1. the task the call's message started, by `GetTask`, when this process
 *    saw the agent name it (`startedTask`);
 * 2. else the tasks of the call's own context (`a2aContextId`) by
 *    `ListTasks`, the one whose history holds the call's `messageId` first.
 *
 * A completed task `happened`: its answer is the call's result, and the
 * call is not sent again. Anything else is `unknown`, and the call waits
 * for a person instead of being sent again: a task still running, or
 * stopped without completing; an agent that cannot get or list tasks; and
 * no task at all, since an empty list is not proof that the message never
 * arrived (an agent may list nothing it has: arbiter's own server answers
 * every `ListTasks` with none). When the agent deduplicates message ids
 * (`deduplicates`), everything but a completed task is `not_happened`: the
 * call is sent again with the same `messageId`, and the agent answers it
 * with the task the first send started (its outcome, or the message run
 * for the first time). Throws what the client throws for a call it could
 * not make at all (the runtime reads a throw as `unknown` too).
 *
 * @example
 * const answer = await reconcileA2aCall({ client, agent: 'billing', messageId, contextId, deduplicates: false, trusted: false, locale: 'en', signal });
 */
export async function reconcileA2aCall({
  client,
  agent,
  messageId,
  contextId,
  startedTask,
  deduplicates,
  trusted,
  locale,
  signal,
}: {
  client: Client;
  agent: string;
  messageId: string;
  /** The context the call was sent in (`a2aContextId`). */
  contextId: string;
  /** The id of the task the agent named for this message, when this process saw it. */
  startedTask?: string | undefined;
  /** The entry's `deduplicatesMessageIds`. */
  deduplicates: boolean;
  trusted: boolean;
  locale: Locale;
  signal: AbortSignal;
}): Promise<ReconcileAnswer<A2aAnswer>> {
  const cannotTell: ReconcileAnswer<A2aAnswer> = deduplicates ? { status: 'not_happened' } : { status: 'unknown' };
  const task =
    (startedTask === undefined ? undefined : await getTask(client, startedTask, signal)) ??
    (await listedTask({ client, messageId, contextId, signal }));
  const state = task?.status?.state;
  if (task === undefined || state !== TaskState.TASK_STATE_COMPLETED) return cannotTell;
  const view = { taskId: task.id, state, statusMessage: task.status?.message, artifacts: task.artifacts };
  return { status: 'happened', result: a2aTaskOutcome({ view, agent, trusted, locale }) };
}

function getTask(client: Client, id: string, signal: AbortSignal): Promise<Task | undefined> {
  return client.getTask({ tenant: '', id }, { signal }).catch(() => undefined);
}

/** The call's task among those the agent lists for its context: by its message, else a completed one. */
async function listedTask({
  client,
  messageId,
  contextId,
  signal,
}: {
  client: Client;
  messageId: string;
  contextId: string;
  signal: AbortSignal;
}): Promise<Task | undefined> {
  const listed = await client
    .listTasks(
      {
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize,
        pageToken: '',
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      },
      { signal },
    )
    .catch(() => undefined);
  // An agent that ignores the filter lists other calls' tasks too: only this call's context counts.
  const ours = listed?.tasks.filter((each) => each.contextId === contextId) ?? [];
  return (
    ours.find((each) => each.history.some((message) => message.messageId === messageId)) ??
    ours.find((each) => each.status?.state === TaskState.TASK_STATE_COMPLETED)
  );
}
