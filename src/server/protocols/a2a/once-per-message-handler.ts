import { randomUUID } from 'node:crypto';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { ServerDependencies } from '../../server-env.js';
import { a2aContextSlot, a2aMessageTaskId, a2aStartsRunKey, a2aTaskSessionId } from './a2a-task-session.js';
import { isFinalTaskState } from './a2a-task-state.js';
import { principalOf } from './principal-user.js';
import { readA2aTask } from './read-a2a-task.js';

/** What the handler needs of the server: the records a task is read from, and the session limit. */
export type OncePerMessageSources = Pick<ServerDependencies, 'sessions' | 'runs' | 'approvals' | 'limits'>;

/**
 * The SDK's request handler, with a new message run at most once per
 * message id. A message that names no task starts the task
 * `a2aMessageTaskId` gives for the caller and its `messageId`: this handler
 * creates that task's session (the database's unique key decides between
 * two racing sends, on any node) and hands the message on as one for that
 * task, so the SDK and the executor see an existing task. The request that
 * created the session starts the run (`a2aStartsRunKey`); the same message
 * sent again while the task goes on follows it, and once the task is final
 * is answered with it as it ended. Everything else is the SDK's.
 *
 * @example
 * const handler = new OncePerMessageHandler({ inner: new DefaultRequestHandler(card, store, executor), sources: dependencies });
 */
export class OncePerMessageHandler implements A2ARequestHandler {
  readonly #inner: A2ARequestHandler;
  readonly #sources: OncePerMessageSources;

  constructor({ inner, sources }: { inner: A2ARequestHandler; sources: OncePerMessageSources }) {
    this.#inner = inner;
    this.#sources = sources;
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const prepared = await this.#prepare(params, context);
    return 'final' in prepared ? prepared.final : this.#inner.sendMessage(prepared.params, context);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const prepared = await this.#prepare(params, context);
    if ('final' in prepared) {
      yield { payload: { $case: 'task', value: prepared.final } };
      return;
    }
    yield* this.#inner.sendMessageStream(prepared.params, context);
  }

  /** The message as one for its own task, or the task it started before if that is final. */
  async #prepare(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ params: SendMessageRequest } | { final: Task }> {
    const message = params.message;
    const principal = principalOf(context.user);
    // A message for a named task, or one the SDK refuses anyway (no id, no principal), is the SDK's.
    if (message === undefined || message.taskId !== '' || message.messageId === '' || principal === undefined) {
      return { params };
    }
    const taskId = a2aMessageTaskId({ ...principal, messageId: message.messageId });
    let found = await readA2aTask(this.#sources, { principal, taskId });
    if (found === undefined) {
      const contextId = message.contextId === '' ? randomUUID() : message.contextId;
      const sessionId = a2aTaskSessionId({ tenantId: principal.tenantId, taskId });
      await this.#sources.limits.createSession(principal);
      try {
        await this.#sources.sessions.create({ sessionId, principal, slots: { [a2aContextSlot]: contextId } });
        context.state.set(a2aStartsRunKey, taskId);
      } catch (error) {
        // Another send of the same message created it first: this one follows that task.
        found = await readA2aTask(this.#sources, { principal, taskId });
        if (found === undefined) throw error;
      }
    }
    if (found !== undefined && isFinalTaskState(found.task.status?.state)) return { final: found.task };
    const contextId = found?.task.contextId ?? message.contextId;
    return { params: { ...params, message: { ...message, taskId, contextId } } };
  }

  getAgentCard(): Promise<AgentCard> {
    return this.#inner.getAgentCard();
  }

  getAuthenticatedExtendedAgentCard(
    params: GetExtendedAgentCardRequest,
    context: ServerCallContext,
  ): Promise<AgentCard> {
    return this.#inner.getAuthenticatedExtendedAgentCard(params, context);
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#inner.getTask(params, context);
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#inner.cancelTask(params, context);
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.#inner.createTaskPushNotificationConfig(params, context);
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.#inner.getTaskPushNotificationConfig(params, context);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.#inner.listTaskPushNotificationConfigs(params, context);
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.#inner.deleteTaskPushNotificationConfig(params, context);
  }

  resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.#inner.resubscribe(params, context);
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.#inner.listTasks(params, context);
  }
}
