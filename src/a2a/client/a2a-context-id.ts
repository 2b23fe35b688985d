import type { Principal } from '../../core/principal.js';
import { sha256Hex } from '../../util/sha256.js';

/**
 * The A2A `contextId` a call with an idempotency key is sent in: derived,
 * as its `messageId` is (`a2aMessageId`), from the key as the runtime
 * scopes it, under another tag, UUID-shaped. Every send of the same call
 * (a retry, a reconciled resend) is in the same context and no other call
 * shares it, so the tasks an agent lists for it (`ListTasks` by context)
 * are the ones this call started: what `reconcileA2aCall` asks about after
 * an answer was lost.
 *
 * @example
 * a2aContextId({ key: 'a2a:billing:apply_refund:9f…', principal }); // '0b9e41d2-…'
 */
export function a2aContextId({ key, principal }: { key: string; principal: Principal | undefined }): string {
  const hex = sha256Hex(JSON.stringify(['a2a-context', principal?.tenantId ?? '', principal?.userId ?? '', key]));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
