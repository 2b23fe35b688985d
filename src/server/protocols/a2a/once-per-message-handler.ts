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
  TaskState,
} from '@a2a-js/sdk';
import {
  type A2ARequestHandler,
  DefaultExecutionEventBus,
  type ExecutionEventBusManager,
  ExecutionEventQueue,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { ServerDependencies } from '../../server-env.js';
import { a2aContextSlot, a2aMessageTaskId, a2aStartsRunKey, a2aTaskSessionId } from './a2a-task-session.js';
import { isFinalTaskState } from './a2a-task-state.js';
import type { ArbiterAgentExecutor } from './arbiter-agent-executor.js';
import { principalOf } from './principal-user.js';
import { readA2aTask } from './read-a2a-task.js';

/** The `ServerCallContext.state` key of the HTTP request's `AbortSignal` (aborted when the client goes). */
export const a2aRequestSignalKey = 'arbiter.a2a.requestSignal';

/** What the handler needs of the server: the records a task is read from, and the session limit. */
export type OncePerMessageSources = Pick<ServerDependencies, 'sessions' | 'runs' | 'approvals' | 'limits' | 'manager'>;

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
  readonly #buses: ExecutionEventBusManager | undefined;
  readonly #follower: Pick<ArbiterAgentExecutor, 'followTask'> | undefined;

  constructor({
    inner,
    sources,
    buses,
    follower,
  }: {
    inner: A2ARequestHandler;
    sources: OncePerMessageSources;
    /** The event buses `inner` follows its executions on: a task with none here is followed by `follower`. */
    buses?: ExecutionEventBusManager;
    /** Follows a task from arbiter's records (`ArbiterAgentExecutor.followTask`); without it, subscriptions are the SDK's. */
    follower?: Pick<ArbiterAgentExecutor, 'followTask'>;
  }) {
    this.#inner = inner;
    this.#sources = sources;
    this.#buses = buses;
    this.#follower = follower;
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

  /**
   * The SDK's subscription, which follows only an execution of this process
   * and otherwise closes after the task as it stands; a task that is not
   * final and that no execution here follows (it waits for a person since a
   * restart, another node runs it, another user of the tenant subscribes) is
   * followed from arbiter's records instead, to its final state as on the node
   * that runs it.
   */
  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const principal = principalOf(context.user);
    const live = this.#buses?.getByTaskId(params.id, context) !== undefined;
    if (this.#follower === undefined || principal === undefined || live) {
      yield* this.#inner.resubscribe(params, context);
      return;
    }
    // Where the run stood before the snapshot: the following starts there, so nothing falls in between.
    const found = await readA2aTask(this.#sources, { principal, taskId: params.id });
    const afterSeq =
      found?.run === undefined
        ? undefined
        : { runId: found.run.runId, seq: await this.#sources.manager.lastSeq(found.run.runId) };
    let state: TaskState | undefined;
    for await (const event of this.#inner.resubscribe(params, context)) {
      if (event.payload?.$case === 'task') state = event.payload.value.status?.state;
      yield event;
    }
    if (state === undefined || isFinalTaskState(state)) return;
    const bus = new DefaultExecutionEventBus();
    const queue = new ExecutionEventQueue(bus);
    const abort = new AbortController();
    // A client gone while the task waits (for a day, perhaps) ends the following now, not at the next event.
    const request = context.state.get(a2aRequestSignalKey);
    if (request instanceof AbortSignal) {
      request.addEventListener(
        'abort',
        () => {
          abort.abort();
          queue.stop();
        },
        { once: true },
      );
    }
    void this.#follower
      .followTask({ principal, taskId: params.id, afterSeq, bus, signal: abort.signal })
      .finally(() => bus.finished());
    try {
      for await (const event of queue.events()) {
        if (event.kind === 'statusUpdate') yield { payload: { $case: 'statusUpdate', value: event.data } };
        else if (event.kind === 'artifactUpdate') yield { payload: { $case: 'artifactUpdate', value: event.data } };
        else if (event.kind === 'task') yield { payload: { $case: 'task', value: event.data } };
      }
    } finally {
      abort.abort();
      queue.stop();
    }
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.#inner.listTasks(params, context);
  }
}
