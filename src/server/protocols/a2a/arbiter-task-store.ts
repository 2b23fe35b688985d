import { type ListTasksResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { RunManager } from '../../run-manager.js';
import { cancelA2aRun } from './cancel-a2a-run.js';
import { principalOf } from './principal-user.js';
import { type A2aTaskSources, readA2aTask } from './read-a2a-task.js';

/**
 * The SDK's task store over arbiter's records: `load` reads the task from
 * its session, runs and approvals (`readA2aTask`), so tasks survive a
 * restart on either backend and another tenant's task id is not found.
 * `save` writes nothing of what the SDK merges (the records are the truth),
 * except a cancellation the SDK decided for a task with no live executor
 * (after a restart): that run is canceled (`cancelA2aRun`).
 *
 * @example
 * new DefaultRequestHandler(card, new ArbiterTaskStore({ sources, manager }), executor);
 */
export class ArbiterTaskStore implements TaskStore {
  readonly #sources: A2aTaskSources;
  readonly #manager: RunManager;

  constructor({ sources, manager }: { sources: A2aTaskSources; manager: RunManager }) {
    this.#sources = sources;
    this.#manager = manager;
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const principal = principalOf(context.user);
    if (principal === undefined) return undefined;
    return (await readA2aTask(this.#sources, { principal, taskId }))?.task;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    if (task.status?.state !== TaskState.TASK_STATE_CANCELED) return;
    const principal = principalOf(context.user);
    if (principal === undefined) return;
    const found = await readA2aTask(this.#sources, { principal, taskId: task.id });
    if (found !== undefined) await cancelA2aRun({ ...this.#sources, manager: this.#manager }, { found, principal });
  }

  async list(): Promise<ListTasksResponse> {
    return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
  }
}
