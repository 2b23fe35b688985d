import type { Principal } from '../../core/principal.js';
import { sha256Hex } from '../../util/sha256.js';

/**
 * The A2A `messageId` of a call with an idempotency key: derived from the
 * key as the runtime scopes it (tenant and user), UUID-shaped, so the call
 * sent again (a retry after a crash, a reconciled call) carries the same id
 * and an agent that treats a repeated message id as the same message (an
 * arbiter server does) runs it once. Two principals' identical calls never
 * share an id.
 *
 * @example
 * a2aMessageId({ key: 'a2a:billing:apply_refund:9f…', principal }); // '5d0c7a1e-…'
 */
export function a2aMessageId({ key, principal }: { key: string; principal: Principal | undefined }): string {
  const hex = sha256Hex(JSON.stringify(['a2a-call', principal?.tenantId ?? '', principal?.userId ?? '', key]));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
