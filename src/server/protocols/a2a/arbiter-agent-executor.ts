import { randomUUID } from 'node:crypto';
import { TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { Locale } from '../../../core/locale.js';
import type { Principal } from '../../../core/principal.js';
import type { ExternalEvent } from '../../../events/external-event.js';
import { isTerminalEvent } from '../../run-manager.js';
import type { ServerDependencies } from '../../server-env.js';
import { followOnManager } from '../../stream-run-events.js';
import { agentMessage, messageText } from './a2a-parts.js';
import { a2aServerTexts } from './a2a-server-texts.js';
import { a2aContextSlot, a2aStartsRunKey, a2aTaskSessionId } from './a2a-task-session.js';
import { a2aTaskState, isFinalTaskState } from './a2a-task-state.js';
import { cancelA2aRun } from './cancel-a2a-run.js';
import { principalOf } from './principal-user.js';
import { answerArtifact, readA2aTask } from './read-a2a-task.js';

/**
 * arbiter as the A2A SDK's agent: a new task is an arbiter run of the
 * caller's tenant and user in the task's own session (`a2aTaskSessionId`);
 * its events become the task's status: working, input-required with the
 * approval's id and reason while a call waits for a person (the run goes on
 * when one decides through the approval routes, and so does the task),
 * completed with the answer as an artifact, failed, or canceled.
 * `cancelTask` aborts the run.
 *
 * @example
 * new DefaultRequestHandler(card, store, new ArbiterAgentExecutor(dependencies));
 */
export class ArbiterAgentExecutor implements AgentExecutor {
  readonly #dependencies: ServerDependencies;
  /** Per task executing here: the principal it runs for, and how its following ends (for `cancelTask`). */
  readonly #following = new Map<string, { principal: Principal; finish: () => void }>();

  constructor(dependencies: ServerDependencies) {
    this.#dependencies = dependencies;
  }

  execute = async (requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const principal = principalOf(requestContext.context.user);
    if (principal === undefined) throw new RequestMalformedError('no principal');
    const { taskId, contextId } = requestContext;
    const locale: Locale = requestContext.userMessage.metadata?.locale === 'zh-CN' ? 'zh-CN' : 'en';
    // A new task: its session was created by `OncePerMessageHandler` for this request, or (a handler
    // without it) is created here. A repeated message finds the session and only follows its run.
    const startsRun = requestContext.context.state.get(a2aStartsRunKey) === taskId;
    if (requestContext.task === undefined || startsRun) {
      const content = messageText(requestContext.userMessage);
      if (content === '') throw new RequestMalformedError(a2aServerTexts(locale).noText);
      await this.#start({ principal, taskId, contextId, content, locale, sessionExists: startsRun });
    }
    const found = await readA2aTask(this.#dependencies, { principal, taskId });
    if (found === undefined) throw new RequestMalformedError(`no task ${taskId}`);
    bus.publish(AgentEvent.task(found.task));
    // Not started yet (the send that created it is still starting it): the caller follows it from here.
    if (found.run === undefined || isFinalTaskState(found.task.status?.state)) return;
    try {
      await this.#follow({
        runId: found.run.runId,
        afterSeq: 0,
        taskId,
        contextId: found.task.contextId,
        locale: found.run.locale,
        bus,
        onFinish: (finish) => this.#following.set(taskId, { principal, finish }),
      });
    } finally {
      this.#following.delete(taskId);
    }
  };

  /**
   * Publishes on `bus` what happens to a task from the run's event after
   * `afterSeq` on, until the task is final or `signal` aborts: a
   * subscription to a task no execution of this process follows (one that
   * waits for a person since a restart, or runs on another node). Returns at
   * once for a task with no run yet, or a final one.
   */
  followTask = async ({
    principal,
    taskId,
    afterSeq,
    bus,
    signal,
  }: {
    principal: Principal;
    taskId: string;
    /** The run's last seq the subscriber's snapshot already reflects; `undefined` follows from its start. */
    afterSeq: { runId: string; seq: number } | undefined;
    bus: ExecutionEventBus;
    signal: AbortSignal;
  }): Promise<void> => {
    const found = await readA2aTask(this.#dependencies, { principal, taskId });
    if (found?.run === undefined || isFinalTaskState(found.task.status?.state) || signal.aborted) return;
    let finishFollowing = () => {};
    // A waiting run canceled elsewhere ends with no event of its own (`cancelA2aRun`): its record says so.
    const watch = setInterval(() => {
      void readA2aTask(this.#dependencies, { principal, taskId }).then(
        (now) => {
          const status = now?.task.status;
          if (status?.state !== TaskState.TASK_STATE_CANCELED) return;
          bus.publish(
            AgentEvent.statusUpdate({ taskId, contextId: found.task.contextId, status, metadata: undefined }),
          );
          finishFollowing();
          // A read that failed (the database busy) is tried again at the next beat.
        },
        () => undefined,
      );
    }, this.#dependencies.heartbeatMs);
    try {
      await this.#follow({
        runId: found.run.runId,
        afterSeq: afterSeq?.runId === found.run.runId ? afterSeq.seq : 0,
        taskId,
        contextId: found.task.contextId,
        locale: found.run.locale,
        bus,
        onFinish: (finish) => {
          finishFollowing = finish;
          signal.addEventListener('abort', finish, { once: true });
        },
      });
    } finally {
      clearInterval(watch);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const following = this.#following.get(taskId);
    if (following === undefined) return;
    const found = await readA2aTask(this.#dependencies, { principal: following.principal, taskId });
    if (found === undefined) return;
    // An aborted run ends with its own terminal event, which the following publishes; a waiting one has none.
    if (await cancelA2aRun(this.#dependencies, { found, principal: following.principal })) {
      const text = a2aServerTexts(found.run?.locale ?? 'en').canceled;
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: found.task.contextId,
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: agentMessage({ taskId, contextId: found.task.contextId, messageId: randomUUID(), text }),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
      following.finish();
    }
  };

  async #start({
    principal,
    taskId,
    contextId,
    content,
    locale,
    sessionExists,
  }: {
    principal: Principal;
    taskId: string;
    contextId: string;
    content: string;
    locale: Locale;
    /** Created (and counted against the session limit) by the request handler. */
    sessionExists: boolean;
  }): Promise<void> {
    const { sessions, limits, manager } = this.#dependencies;
    const sessionId = a2aTaskSessionId({ tenantId: principal.tenantId, taskId });
    if (!sessionExists) {
      await limits.createSession(principal);
      await sessions.create({ sessionId, principal, slots: { [a2aContextSlot]: contextId } });
    }
    await limits.sendMessage(principal);
    await manager.start({ sessionId, principal, content, locale });
  }

  /** Publishes the run's events as the task's status until the task has reached a final state. */
  async #follow({
    runId,
    afterSeq,
    taskId,
    contextId,
    locale,
    bus,
    onFinish,
  }: {
    runId: string;
    /** The run's events after this seq are followed (0: all of them). */
    afterSeq: number;
    taskId: string;
    contextId: string;
    locale: Locale;
    bus: ExecutionEventBus;
    /** Given the function that ends the following early (a canceled task whose run waits). */
    onFinish: (finish: () => void) => void;
  }): Promise<void> {
    const texts = a2aServerTexts(locale);
    const follow = this.#dependencies.followRun ?? followOnManager(this.#dependencies.manager);
    const status = (state: TaskState, text?: string, metadata?: Record<string, unknown>) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message:
            text === undefined
              ? undefined
              : agentMessage({
                  taskId,
                  contextId,
                  messageId: randomUUID(),
                  text,
                  ...(metadata === undefined ? {} : { metadata }),
                }),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      });
    await new Promise<void>((resolve) => {
      let unfollow: (() => void) | undefined;
      let done = false;
      const finish = () => {
        done = true;
        unfollow?.();
        resolve();
      };
      onFinish(finish);
      const push = (event: ExternalEvent) => {
        if (done) return;
        if (event.type === 'approval:required') {
          const { approvalId, tool, reason, expiresAt } = event;
          bus.publish(
            status(TaskState.TASK_STATE_INPUT_REQUIRED, texts.awaitingApproval({ approvalId, tool, reason }), {
              approvals: [{ approvalId, tool, reason, ...(expiresAt === undefined ? {} : { expiresAt }) }],
            }),
          );
        } else if (event.type === 'approval:resolved') {
          bus.publish(status(TaskState.TASK_STATE_WORKING));
        } else if (isTerminalEvent(event)) {
          void this.#ended({ taskId, contextId, event, texts, status, bus }).then((final) => {
            if (final) finish();
          });
        }
      };
      void Promise.resolve(follow({ runId, afterSeq, push })).then((followed) => {
        unfollow = followed.unfollow;
        if (done) unfollow();
      });
    });
  }

  /** Publishes what a terminal event of the run means for the task; true when the task is final. */
  async #ended({
    taskId,
    contextId,
    event,
    texts,
    status,
    bus,
  }: {
    taskId: string;
    contextId: string;
    event: ExternalEvent;
    texts: ReturnType<typeof a2aServerTexts>;
    status: (state: TaskState, text?: string) => ReturnType<typeof AgentEvent.statusUpdate>;
    bus: ExecutionEventBus;
  }): Promise<boolean> {
    if (event.type === 'run:error') {
      bus.publish(status(TaskState.TASK_STATE_FAILED, texts.failed));
      return true;
    }
    if (event.type !== 'run:end' || event.stopReason === 'awaiting_approval') return false;
    const state = a2aTaskState(event.stopReason);
    if (state === TaskState.TASK_STATE_COMPLETED) {
      const answer = await this.#answer(event.runId);
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: answerArtifact(answer),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(status(state));
    } else if (state === TaskState.TASK_STATE_CANCELED) {
      bus.publish(status(state, texts.canceled));
    } else {
      bus.publish(status(state, texts.stopped(event.stopReason)));
    }
    return true;
  }

  async #answer(runId: string): Promise<string> {
    const run = await this.#dependencies.runs.find(runId);
    const session = run === undefined ? undefined : await this.#dependencies.sessions.load(run.sessionId);
    const last = session?.messages.filter((message) => message.role === 'assistant' && message.content).at(-1);
    return typeof last?.content === 'string' ? last.content : '';
  }
}
