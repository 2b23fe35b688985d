import { TaskState } from '@a2a-js/sdk';
import type { ServerRunStatus } from '../../../store/server-run.js';

/**
 * The A2A state of a task whose arbiter run stands at `status`: running is
 * working, waiting for a person is input-required (the approval's id and
 * reason go with it), an abort is canceled, a run:error and any brake or
 * budget that stopped the run without an answer are failed.
 *
 * @example
 * a2aTaskState('awaiting_approval'); // TaskState.TASK_STATE_INPUT_REQUIRED
 */
export function a2aTaskState(status: ServerRunStatus): TaskState {
  switch (status) {
    case 'running':
      return TaskState.TASK_STATE_WORKING;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'awaiting_approval':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case 'aborted':
      return TaskState.TASK_STATE_CANCELED;
    default:
      return TaskState.TASK_STATE_FAILED;
  }
}

/**
 * Whether nothing follows `state` on a task.
 *
 * @example
 * isFinalTaskState(TaskState.TASK_STATE_COMPLETED); // true
 */
export function isFinalTaskState(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}
