import { Hono } from 'hono';
import type { ChatMessage } from '../core/chat-message.js';
import type { Locale } from '../core/locale.js';
import { HttpError } from '../errors/http-error.js';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import type { ServerRun } from '../store/server-run.js';
import type { Session } from '../store/session-store.js';
import { optionalChoice, readJsonBody, requireString } from './read-json-body.js';
import { visibleFailure } from './run-failure.js';
import { canSee, notFound, type ServerDependencies, type ServerEnv } from './server-env.js';

const locales = ['en', 'zh-CN'] as const satisfies readonly Locale[];
const maxMessageLength = 8000;

/** A message as the browser sees it: what the user said and what the assistant answered. */
export interface VisibleMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
  /** The run that added it. */
  readonly runId: string | undefined;
}

/**
 * `POST /v1/sessions`, `GET /v1/sessions/:id` and
 * `POST /v1/sessions/:id/messages`. Creating sessions and sending messages
 * count against the caller's per-minute limits (`PrincipalLimits`: 429
 * with `Retry-After` beyond them).
 *
 * @example
 * app.route('/v1/sessions', sessionRoutes(dependencies));
 */
export function sessionRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const { sessions, runs, approvals, manager, systemPrompt, limits } = dependencies;
  const routes = new Hono<ServerEnv>();

  const visibleSession = async (principal: ServerEnv['Variables']['principal'], id: string): Promise<Session> => {
    const session = await sessions.load(id);
    if (session === undefined || !canSee(principal, session)) throw notFound('session', id);
    return session;
  };

  routes.post('/', async (c) => {
    const body = await readJsonBody(c, { optional: true });
    const locale = optionalChoice(body, 'locale', locales) ?? 'en';
    const principal = c.get('principal');
    await limits.createSession(principal);
    const session = await sessions.create({ principal });
    const prompt = systemPrompt?.(locale);
    if (prompt !== undefined)
      await sessions.append({ sessionId: session.id, messages: [{ role: 'system', content: prompt }] });
    return c.json({ id: session.id }, 201);
  });

  routes.get('/:id', async (c) => {
    const principal = c.get('principal');
    const session = await visibleSession(principal, c.req.param('id'));
    const sessionRuns = await runs.listForSession(session.id);
    const activeRunId = session.activeRun?.runId;
    const lastSeqs = await Promise.all(sessionRuns.map((run) => manager.lastSeq(run.runId)));
    const pending =
      activeRunId === undefined ? [] : await approvals.listApprovals({ status: 'pending', runId: activeRunId });
    return c.json({
      id: session.id,
      status: session.status,
      activeRunId: activeRunId ?? null,
      messages: visibleMessages(session.messages, sessionRuns),
      runs: sessionRuns.map((run, index) => ({
        runId: run.runId,
        status: run.status,
        lastSeq: lastSeqs[index] ?? 0,
        failure: visibleFailure({ failure: run.failure, principal }) ?? null,
      })),
      pendingApprovals: pending.map((approval) => ({
        approvalId: approval.approvalId,
        tool: approval.tool,
        arguments: approval.arguments,
        reason: approval.reason,
      })),
    });
  });

  routes.post('/:id/messages', async (c) => {
    const principal = c.get('principal');
    const body = await readJsonBody(c);
    const content = requireString(body, 'content', { maxLength: maxMessageLength });
    const locale = optionalChoice(body, 'locale', locales) ?? 'en';
    const session = await visibleSession(principal, c.req.param('id'));
    if (session.userId !== principal.userId) {
      throw new HttpError({ status: 403, reason: 'forbidden', message: 'only the session owner can send messages' });
    }
    await limits.sendMessage(principal);
    try {
      const { runId } = await manager.start({ sessionId: session.id, principal, content, locale, session });
      return c.json({ runId }, 202);
    } catch (error) {
      if (SessionConflictError.isInstance(error) && error.activeRunId !== undefined) {
        throw new HttpError({
          status: 409,
          reason: 'run_active',
          message: `session ${session.id} already has run ${error.activeRunId} in progress`,
          details: { activeRunId: error.activeRunId },
        });
      }
      throw error;
    }
  });

  return routes;
}

/** User and assistant texts, each tagged with the run that added it; tool traffic stays inside. */
export function visibleMessages(messages: readonly ChatMessage[], sessionRuns: readonly ServerRun[]): VisibleMessage[] {
  const owners = [...sessionRuns].sort((left, right) => left.messageOffset - right.messageOffset);
  const runAt = (index: number): string | undefined => owners.findLast((run) => run.messageOffset <= index)?.runId;
  return messages.flatMap((message, index): VisibleMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content, runId: runAt(index) }];
    if (message.role === 'assistant' && message.content !== null && message.content !== '') {
      return [{ role: 'assistant', content: message.content, runId: runAt(index) }];
    }
    return [];
  });
}
