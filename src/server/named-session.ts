import { createHash } from 'node:crypto';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import type { Session } from '../store/session-store.js';
import { canSee, type ServerDependencies } from './server-env.js';

/** The protocols whose clients name their own conversations (a `useChat` chat id, an AG-UI thread id). */
export type SessionNameKind = 'chat' | 'ag-ui';

/**
 * The session id behind a conversation name a client chose: derived from
 * the caller's tenant, user and the name, so a name lives in its caller's
 * namespace. The same name in two tenants, or of two users of one tenant,
 * is two sessions, and nobody can create (and so occupy) a session under
 * an id another principal's name leads to.
 *
 * @example
 * namedSessionId('chat', { tenantId: 'shop', userId: 'C1001', roles: [] }, 'support'); // 'chat-9b0e…'
 */
export function namedSessionId(kind: SessionNameKind, principal: Principal, name: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([kind, principal.tenantId, principal.userId, name]))
    .digest('hex');
  return `${kind}-${digest.slice(0, 40)}`;
}

/**
 * The session a client's conversation name refers to for `principal`:
 *
 * 1. the principal's own conversation of that name;
 * 2. otherwise the session whose *id* the name is, when the principal may
 *    see it (how an approver opens a customer's conversation: by the
 *    session id `GET /v1/approvals` shows, never by the customer's name
 *    for it);
 * 3. otherwise, with `create`, a new session of the principal under
 *    `namedSessionId` (counting against the session limit, with the
 *    server's system prompt in `locale`).
 *
 * Anything else is `undefined`. Another principal's session is never
 * returned to someone who may not see it, and never stands in the way of
 * the owner: step 3 only ever creates ids in the caller's namespace.
 *
 * @example
 * const session = await openNamedSession(dependencies, { kind: 'chat', principal, name: 'support', locale: 'en', create: true });
 */
export async function openNamedSession(
  dependencies: Pick<ServerDependencies, 'sessions' | 'limits' | 'systemPrompt'>,
  {
    kind,
    principal,
    name,
    locale,
    create,
  }: { kind: SessionNameKind; principal: Principal; name: string; locale: Locale; create: boolean },
): Promise<Session | undefined> {
  const { sessions, limits, systemPrompt } = dependencies;
  const ownId = namedSessionId(kind, principal, name);
  const own = await sessions.load(ownId);
  if (own !== undefined) return own;
  const byId = await sessions.load(name);
  if (byId !== undefined && canSee(principal, byId)) return byId;
  if (!create) return undefined;

  await limits.createSession(principal);
  try {
    await sessions.create({ sessionId: ownId, principal });
  } catch (error) {
    // Two first requests of one conversation at once: the other created it.
    const raced = await sessions.load(ownId);
    if (raced === undefined) throw error;
    return raced;
  }
  const prompt = systemPrompt?.(locale);
  if (prompt !== undefined)
    await sessions.append({ sessionId: ownId, messages: [{ role: 'system', content: prompt }] });
  return sessions.load(ownId);
}
