import { createHash } from 'node:crypto';
import type { Locale } from '../../../core/locale.js';
import type { Principal } from '../../../core/principal.js';
import { HttpError } from '../../../errors/http-error.js';
import type { Session } from '../../../store/session-store.js';
import { canSee, type ServerDependencies } from '../../server-env.js';

/**
 * The arbiter session of an AG-UI thread: its id derived from the tenant
 * and the thread id, so the same `threadId` in two tenants names two
 * sessions, and no thread id reaches another tenant's session.
 *
 * @example
 * threadSessionId('shop', 'thread-1'); // 'ag-ui-3f1c…'
 */
export function threadSessionId(tenantId: string, threadId: string): string {
  return `ag-ui-${createHash('sha256')
    .update(JSON.stringify([tenantId, threadId]))
    .digest('hex')
    .slice(0, 40)}`;
}

/**
 * The thread's session as `principal` may see it (the owner, or an
 * approver of the tenant); created for the principal when it does not
 * exist yet and `create` is set (counting against the principal's session
 * limit, with the server's system prompt). A thread the principal may not
 * see answers 404, as if it did not exist.
 *
 * @example
 * const session = await openThreadSession(dependencies, { principal, threadId, locale: 'en', create: true });
 */
export async function openThreadSession(
  dependencies: ServerDependencies,
  { principal, threadId, locale, create }: { principal: Principal; threadId: string; locale: Locale; create: boolean },
): Promise<Session> {
  const { sessions, limits, systemPrompt } = dependencies;
  const sessionId = threadSessionId(principal.tenantId, threadId);
  let session = await sessions.load(sessionId);
  if (session === undefined && create) {
    await limits.createSession(principal);
    try {
      session = await sessions.create({ sessionId, principal });
      const prompt = systemPrompt?.(locale);
      if (prompt !== undefined) await sessions.append({ sessionId, messages: [{ role: 'system', content: prompt }] });
      session = await sessions.load(sessionId);
    } catch (error) {
      // Two first requests of one thread at once: the other created it.
      session = await sessions.load(sessionId);
      if (session === undefined) throw error;
    }
  }
  if (session === undefined || !canSee(principal, session)) {
    throw new HttpError({ status: 404, reason: 'not_found', message: `no thread ${JSON.stringify(threadId)}` });
  }
  return session;
}
