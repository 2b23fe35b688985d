import type { Locale } from '../../../core/locale.js';
import type { Principal } from '../../../core/principal.js';
import { HttpError } from '../../../errors/http-error.js';
import type { Session } from '../../../store/session-store.js';
import { namedSessionId, openNamedSession } from '../../named-session.js';
import type { ServerDependencies } from '../../server-env.js';

/**
 * The arbiter session of the caller's AG-UI thread: derived from the
 * tenant, the user and the thread id (see `namedSessionId`), so the same
 * `threadId` of two users names two sessions and nobody can occupy
 * another's thread.
 *
 * @example
 * threadSessionId({ tenantId: 'shop', userId: 'C1001', roles: [] }, 'thread-1'); // 'ag-ui-3f1c…'
 */
export function threadSessionId(principal: Principal, threadId: string): string {
  return namedSessionId('ag-ui', principal, threadId);
}

/**
 * The thread's session as `principal` may see it: the caller's own thread,
 * or (for an approver of the tenant answering an interrupt) the session
 * whose id `threadId` is; created for the caller when it does not exist
 * yet and `create` is set. Anything else answers 404, as if it did not
 * exist.
 *
 * @example
 * const session = await openThreadSession(dependencies, { principal, threadId, locale: 'en', create: true });
 */
export async function openThreadSession(
  dependencies: ServerDependencies,
  { principal, threadId, locale, create }: { principal: Principal; threadId: string; locale: Locale; create: boolean },
): Promise<Session> {
  const session = await openNamedSession(dependencies, { kind: 'ag-ui', principal, name: threadId, locale, create });
  if (session === undefined) {
    throw new HttpError({ status: 404, reason: 'not_found', message: `no thread ${JSON.stringify(threadId)}` });
  }
  return session;
}
