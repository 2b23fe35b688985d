import { type Artifact, type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { Principal } from '../../../core/principal.js';
import type { ServerRun } from '../../../store/server-run.js';
import type { Session } from '../../../store/session-store.js';
import { canSee, type ServerDependencies } from '../../server-env.js';
import { agentMessage, textPart } from './a2a-parts.js';
import { a2aServerTexts } from './a2a-server-texts.js';
import { a2aContextSlot, a2aTaskSessionId } from './a2a-task-session.js';
import { a2aTaskState } from './a2a-task-state.js';

/** What reading a task needs of the server. */
export type A2aTaskSources = Pick<ServerDependencies, 'sessions' | 'runs' | 'approvals'>;

/** A task the caller may see: its session and latest run, with the A2A view of them. */
export interface A2aTaskRecord {
  readonly session: Session;
  readonly run: ServerRun | undefined;
  readonly task: Task;
}

/**
 * An A2A task as arbiter's own records tell it, so nothing is lost on a
 * restart and every backend serves it: its session (`a2aTaskSessionId`),
 * the session's latest run (state: `a2aTaskState`; waiting for a person,
 * the pending approvals' ids and reasons), the conversation as history, and
 * the answer as the `answer` artifact once completed. Undefined for a task
 * that does not exist or is not the caller's to see (another tenant's, or
 * another user's unless the caller approves for the tenant).
 *
 * @example
 * const found = await readA2aTask(dependencies, { principal, taskId });
 */
export async function readA2aTask(
  sources: A2aTaskSources,
  { principal, taskId }: { principal: Principal; taskId: string },
): Promise<A2aTaskRecord | undefined> {
  const session = await sources.sessions.load(a2aTaskSessionId({ tenantId: principal.tenantId, taskId }));
  if (session === undefined || !canSee(principal, { tenantId: session.tenantId, userId: session.userId })) {
    return undefined;
  }
  const slot = session.slots[a2aContextSlot];
  const contextId = typeof slot === 'string' ? slot : session.id;
  const runs = await sources.runs.listForSession(session.id);
  const run = runs.reduce<ServerRun | undefined>(
    (latest, candidate) => (latest === undefined || candidate.startedAt >= latest.startedAt ? candidate : latest),
    undefined,
  );
  const history: Message[] = [];
  session.messages.forEach((message, index) => {
    if ((message.role === 'user' || message.role === 'assistant') && message.content) {
      history.push(
        agentMessage({
          taskId,
          contextId,
          messageId: `${taskId}-${index}`,
          text: message.content,
          role: message.role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
        }),
      );
    }
  });
  const state = run === undefined ? TaskState.TASK_STATE_SUBMITTED : a2aTaskState(run.status);
  const texts = a2aServerTexts(run?.locale ?? 'en');
  let statusText: string | undefined;
  let metadata: Record<string, unknown> | undefined;
  if (run !== undefined && state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    const pending = await sources.approvals.listApprovals({ status: 'pending', runId: run.runId });
    statusText = pending.map((approval) => texts.awaitingApproval({ ...approval, tool: approval.tool })).join('\n');
    metadata = {
      approvals: pending.map(({ approvalId, tool, reason, expiresAt }) => ({
        approvalId,
        tool,
        reason,
        expiresAt: new Date(expiresAt).toISOString(),
      })),
    };
  } else if (run !== undefined && state === TaskState.TASK_STATE_FAILED) {
    statusText = run.status === 'error' ? texts.failed : texts.stopped(run.status);
  } else if (state === TaskState.TASK_STATE_CANCELED) {
    statusText = texts.canceled;
  }
  const answer = history.at(-1);
  const artifacts: Artifact[] =
    state === TaskState.TASK_STATE_COMPLETED && answer !== undefined && answer.role === Role.ROLE_AGENT
      ? [answerArtifact(answer.parts[0]?.content?.$case === 'text' ? answer.parts[0].content.value : '')]
      : [];
  return {
    session,
    run,
    task: {
      id: taskId,
      contextId,
      status: {
        state,
        message:
          statusText === undefined
            ? undefined
            : agentMessage({
                taskId,
                contextId,
                messageId: `${run?.runId ?? taskId}-status-${state}`,
                text: statusText,
                ...(metadata === undefined ? {} : { metadata }),
              }),
        timestamp: new Date(run?.updatedAt ?? session.createdAt).toISOString(),
      },
      artifacts,
      history,
      metadata: run === undefined ? undefined : { runId: run.runId, sessionId: session.id },
    },
  };
}

/**
 * The task's answer as an artifact.
 *
 * @example
 * answerArtifact('Refund RF1 applied');
 */
export function answerArtifact(text: string): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: '',
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}
