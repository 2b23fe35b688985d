import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Locale } from '../../../core/locale.js';
import type { Principal } from '../../../core/principal.js';
import { HttpError } from '../../../errors/http-error.js';
import { SessionConflictError } from '../../../errors/session-conflict-error.js';
import type { ServerRun } from '../../../store/server-run.js';
import type { Session } from '../../../store/session-store.js';
import { decideApproval, requireApprover } from '../../decide-approval.js';
import { openNamedSession } from '../../named-session.js';
import { optionalChoice, readJsonBody } from '../../read-json-body.js';
import { approverRole, notFound, type ServerDependencies, type ServerEnv } from '../../server-env.js';
import { followOnManager } from '../../stream-run-events.js';
import { readChatId, readChatRequest } from './read-chat-request.js';
import { sessionToolFacts } from './run-tool-facts.js';
import { streamUiMessages } from './stream-ui-messages.js';
import { type ChatAudience, UiMessageStreamEncoder } from './ui-message-stream-encoder.js';

const locales = ['en', 'zh-CN'] as const satisfies readonly Locale[];

/**
 * The AI SDK's chat endpoint, for `useChat` with `DefaultChatTransport`
 * (`api: '/v1/chat'`), answered with the UI message stream:
 *
 * - `POST /v1/chat` `{ id, messages | message, trigger? }`: a user message
 *   starts a run in the caller's chat of that id (a session created on
 *   first use under an id derived from the caller's tenant, user and the
 *   chat id, so chat ids of different principals never meet: see
 *   `openNamedSession`). An approver opens a customer's chat by its
 *   session id (as `GET /v1/approvals` shows it), to watch and decide: he
 *   may not speak in it (403); an assistant message
 *   whose tool parts carry approval responses decides those approvals under
 *   the rules of `POST /v1/approvals/:id` (approver role, four eyes, bound
 *   to the call and the session) and streams the run's continuation.
 * - `GET /v1/chat/:id/stream` (the transport's reconnect): the session's
 *   active run replayed from its first event and followed live, or 204 when
 *   no run is active — also for a chat not begun yet and for a chat the
 *   caller may not see, which tells him nothing about it.
 *
 * The session's owner reads approvals as `data-approval` parts and the
 * stream stays open while the run waits; an approver of the tenant reads
 * `tool-approval-request` and the stream finishes when the run waits, so he
 * can answer it. Streams count against the caller's stream limit.
 *
 * @example
 * app.route('/v1/chat', chatRoutes(dependencies));
 */
export function chatRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const { sessions, runs, manager, limits, allowSelfApproval } = dependencies;
  const routes = new Hono<ServerEnv>();
  const follow = dependencies.followRun ?? followOnManager(manager);

  const named = (principal: Principal, name: string, locale: Locale, create: boolean) =>
    openNamedSession(dependencies, { kind: 'chat', principal, name, locale, create });
  const isOwner = (principal: Principal, session: Pick<Session, 'tenantId' | 'userId'>) =>
    session.tenantId === principal.tenantId && session.userId === principal.userId;
  const audienceOf = (principal: Principal, session: Pick<Session, 'tenantId' | 'userId'>): ChatAudience =>
    principal.roles.includes(approverRole) && (allowSelfApproval || !isOwner(principal, session))
      ? 'approver'
      : 'customer';

  const stream = async (
    c: Context<ServerEnv>,
    {
      run,
      audience,
      sentThrough = 0,
      finishAwaitingFrom,
    }: { run: ServerRun; audience: ChatAudience; sentThrough?: number; finishAwaitingFrom?: number | undefined },
  ): Promise<Response> => {
    const release = await limits.openStream(c.get('principal'));
    // The chat's session id: what \`/v1/sessions/:id\` and the approvals know the chat by.
    c.header('x-arbiter-session', run.sessionId);
    const encoder = new UiMessageStreamEncoder({
      messageId: run.runId,
      runId: run.runId,
      audience,
      sentThrough,
      finishAwaitingFrom,
      facts: sessionToolFacts({
        sessions,
        sessionId: run.sessionId,
        messageOffset: run.messageOffset,
        tools: dependencies.tools,
      }),
    });
    return streamUiMessages(c, {
      runId: run.runId,
      status: run.status,
      encoder,
      follow,
      metrics: dependencies.metrics,
      heartbeatMs: dependencies.heartbeatMs,
      maxQueued: dependencies.maxQueuedEvents,
      onClose: release,
    });
  };

  const findRun = async (runId: string): Promise<ServerRun> => {
    const run = await runs.find(runId);
    if (run === undefined) throw notFound('run', runId);
    return run;
  };

  routes.post('/', async (c) => {
    const principal = c.get('principal');
    const body = await readJsonBody(c);
    const request = readChatRequest(body);
    const locale = optionalChoice(body, 'locale', locales) ?? 'en';
    if (request.kind === 'approvals') {
      const session = await named(principal, request.chatId, locale, false);
      if (session === undefined) throw notFound('session', request.chatId);
      requireApprover(principal);
      const pending: { response: (typeof request.responses)[number]; runId: string | undefined }[] = [];
      for (const response of request.responses) {
        const approval = await dependencies.approvals.getApproval(response.approvalId);
        // Decided before (a client sending its earlier answers again): nothing to do for it.
        if (approval !== undefined && approval.status !== 'pending') continue;
        pending.push({ response, runId: approval?.runId });
      }
      if (pending.length === 0) {
        throw new HttpError({
          status: 409,
          reason: 'already_decided',
          message: 'every approval in the message has been decided already',
        });
      }
      let decided: { runId: string; sentThrough: number } | undefined;
      for (const { response, runId } of pending) {
        // What the client has seen: the run up to where it stopped to wait.
        const sentThrough = runId === undefined ? 0 : await manager.lastSeq(runId);
        const result = await decideApproval(dependencies, {
          principal,
          approvalId: response.approvalId,
          decision: response.approved ? 'approve' : 'reject',
          reason: response.reason,
          expect: { sessionId: session.id, toolCallId: response.toolCallId },
        });
        decided ??= { runId: result.runId, sentThrough };
      }
      if (decided === undefined) throw notFound('session', request.chatId);
      return stream(c, {
        run: await findRun(decided.runId),
        audience: audienceOf(principal, session),
        sentThrough: decided.sentThrough,
        finishAwaitingFrom: decided.sentThrough + 1,
      });
    }

    const session = await named(principal, request.chatId, locale, true);
    if (session === undefined) throw notFound('session', request.chatId);
    if (!isOwner(principal, session)) {
      throw new HttpError({ status: 403, reason: 'forbidden', message: 'only the session owner can send messages' });
    }
    await limits.sendMessage(principal);
    let runId: string;
    try {
      ({ runId } = await manager.start({ sessionId: session.id, principal, content: request.text, locale }));
    } catch (error) {
      if (SessionConflictError.isInstance(error) && error.activeRunId !== undefined) {
        throw new HttpError({
          status: 409,
          reason: 'run_active',
          message: `chat ${session.id} already has run ${error.activeRunId} in progress`,
          details: { activeRunId: error.activeRunId },
        });
      }
      throw error;
    }
    return stream(c, { run: await findRun(runId), audience: audienceOf(principal, session) });
  });

  routes.get('/:id/stream', async (c) => {
    const principal = c.get('principal');
    const chatId = readChatId(c.req.param('id'));
    const session = await named(principal, chatId, 'en', false);
    // A chat not begun yet (useChat reconnects on every mount) and another's chat alike: no stream to resume.
    if (session === undefined) return c.body(null, 204);
    const runId = session.activeRun?.runId;
    const run = runId === undefined ? undefined : await runs.find(runId);
    if (run === undefined) return c.body(null, 204);
    const audience = audienceOf(principal, session);
    const lastSeq = await manager.lastSeq(run.runId);
    return stream(c, {
      run,
      audience,
      // An approver's stream finishes where the run now waits for him (not at an approval decided since).
      finishAwaitingFrom:
        audience === 'approver' ? (run.status === 'awaiting_approval' ? lastSeq : lastSeq + 1) : undefined,
    });
  });

  return routes;
}
