import { sha256Hex } from '../../../util/sha256.js';

/** Every A2A task's session id starts so; nothing else arbiter makes does. */
const a2aSessionPrefix = 'a2a_';

/**
 * The session an A2A task runs in: one per tenant and task id, so the task
 * is found again from arbiter's own records after a restart (its runs are
 * the session's), and another tenant's identical task id names another session.
 *
 * @example
 * a2aTaskSessionId({ tenantId: 'shop', taskId: '5f0c…' }); // 'a2a_9d2e…'
 */
export function a2aTaskSessionId({ tenantId, taskId }: { tenantId: string; taskId: string }): string {
  // JSON of the pair: no tenant and task ids, whatever characters they hold, make another pair's text.
  return `${a2aSessionPrefix}${sha256Hex(JSON.stringify([tenantId, taskId])).slice(0, 32)}`;
}

/** The session slot that keeps the task's A2A context id. */
export const a2aContextSlot = 'a2a_context_id';

/**
 * The task a new message (one that names no task) starts: one per tenant,
 * user and message id, UUID-shaped. The same message sent again (a client
 * retrying after a lost answer or a crash) names the same task, so it is
 * answered with that task instead of running a second time; another user's
 * identical message id names another task.
 *
 * @example
 * a2aMessageTaskId({ tenantId: 'shop', userId: 'C1001', messageId: 'm-1' }); // '3b1f0c2e-…'
 */
export function a2aMessageTaskId({
  tenantId,
  userId,
  messageId,
}: {
  tenantId: string;
  userId: string;
  messageId: string;
}): string {
  const hex = sha256Hex(JSON.stringify(['a2a-message', tenantId, userId, messageId]));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Where the request handler tells the executor, in the request's
 * `ServerCallContext.state`, that this request created the task's session
 * and is the one to start its run (a repeated message only follows it).
 */
export const a2aStartsRunKey = 'arbiter.a2a.startsRun';
