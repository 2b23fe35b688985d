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
