import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Principal } from '../core/principal.js';
import { HttpError } from '../errors/http-error.js';
import type { ExternalEvent } from '../events/external-event.js';
import { displayArguments } from '../events/sensitive-fields.js';
import { toolFieldPolicies } from '../events/tool-field-policies.js';
import type { AuditRecord } from '../store/audit-rows.js';
import { shownFieldDisplays } from '../tools/field-display.js';
import { maxReasonLength } from './approval-routes.js';
import { decideApproval, requireApprover } from './decide-approval.js';
import { type AuditFilter, filterAuditRows, isAuditReader, tenantChainStatus } from './desk-audit.js';
import { shownAnswer } from './desk-earlier-call.js';
import { listInbox, runTenants } from './desk-inbox.js';
import { InboxFeed } from './inbox-feed.js';
import { optionalChoice, readJsonBody } from './read-json-body.js';
import { runTimeline, storedCalls } from './run-timeline.js';
import { approverRole, auditorRole, notFound, type ServerDependencies, type ServerEnv } from './server-env.js';

/** The most approvals one request may decide. */
export const maxDecisionsAtOnce = 50;

/** The most audit rows one answer carries. */
const maxAuditRows = 1000;

export interface DeskRoutesOptions {
  /** How often open inboxes read the store for changes made elsewhere. Default 500 ms. */
  readonly inboxPollMs?: number;
  readonly onError: (error: unknown) => void;
}

/**
 * The approver's desk behind `/desk` (the page), on the same bearer auth;
 * the tenant is always the caller's, another tenant's ids answer 404:
 * - `GET /v1/desk/inbox` (approver): the tenant's pending approvals, newest
 *   first, each with `blocked` (`four_eyes` for his own request, `expired`);
 * - `GET /v1/desk/inbox/events` (approver): SSE, an `inbox` event with the
 *   whole inbox at once and again whenever it changes (asked or decided on
 *   any node);
 * - `POST /v1/desk/decisions` `{ approvalIds, decision, reason? }`
 *   (approver): each through `decideApproval` (four eyes, expiry, tenant),
 *   one result per id;
 * - `GET /v1/desk/runs/:id` (approver or auditor): the run's timeline;
 * - `GET /v1/desk/audit?tool&outcome&user&from&to&format=ndjson` (approver
 *   or auditor): the tenant's audit rows and the chain's status.
 *
 * @example
 * app.route('/v1/desk', deskRoutes(dependencies, { onError }));
 */
export function deskRoutes(
  dependencies: ServerDependencies,
  { inboxPollMs = 500, onError }: DeskRoutesOptions,
): Hono<ServerEnv> & { readonly feed: InboxFeed } {
  const routes = new Hono<ServerEnv>();
  const tenantOf = runTenants(dependencies.runs);
  const feed = new InboxFeed({ approvals: dependencies.approvals, tenantOf, pollMs: inboxPollMs, onError });
  const inbox = async (principal: Principal) => {
    const now = Date.now();
    return { now: new Date(now).toISOString(), approvals: await listInbox({ dependencies, principal, tenantOf, now }) };
  };

  routes.get('/inbox', async (c) => {
    const principal = c.get('principal');
    requireApprover(principal);
    return c.json(await inbox(principal));
  });

  routes.get('/inbox/events', async (c) => {
    const principal = c.get('principal');
    requireApprover(principal);
    const release = await dependencies.limits.openStream(principal);
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      let sent = '';
      let sending = Promise.resolve();
      let closed = false;
      const send = () => {
        sending = sending.then(async () => {
          if (closed) return;
          const current = await inbox(principal);
          const signature = JSON.stringify(current.approvals);
          if (signature === sent) return;
          sent = signature;
          await stream.write(`event: inbox\ndata: ${JSON.stringify(current)}\n\n`);
        });
        sending.catch((error: unknown) => {
          onError(error);
          stream.abort();
        });
      };
      const unsubscribe = feed.subscribe(principal.tenantId, send);
      const heartbeat = setInterval(() => {
        void stream.write(': ping\n\n').catch(() => stream.abort());
      }, dependencies.heartbeatMs);
      try {
        await stream.write(`retry: 1000\n: ping interval=${dependencies.heartbeatMs}\n\n`);
        send();
        await new Promise<void>((resolve) => stream.onAbort(resolve));
      } finally {
        closed = true;
        clearInterval(heartbeat);
        unsubscribe();
        release();
      }
    });
  });

  routes.post('/decisions', async (c) => {
    const principal = c.get('principal');
    requireApprover(principal);
    const body = await readJsonBody(c);
    const decision = optionalChoice(body, 'decision', ['approve', 'reject'] as const);
    const ids = body.approvalIds;
    if (decision === undefined) {
      throw invalid('decision', '"decision" must be "approve" or "reject"');
    }
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      ids.length > maxDecisionsAtOnce ||
      !ids.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 200)
    ) {
      throw invalid('approvalIds', `"approvalIds" must hold 1 to ${maxDecisionsAtOnce} approval ids`);
    }
    const reason = body.reason;
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > maxReasonLength)) {
      throw invalid('reason', `"reason" must be a string of at most ${maxReasonLength} characters`);
    }
    const results = [];
    for (const approvalId of new Set(ids)) {
      try {
        const decided = await decideApproval(dependencies, {
          principal,
          approvalId,
          decision,
          reason: typeof reason === 'string' ? reason : undefined,
        });
        results.push({
          approvalId,
          ok: true,
          decision: decided.decision,
          runId: decided.runId,
          resumed: decided.resumed,
        });
      } catch (error) {
        if (!HttpError.isInstance(error)) throw error;
        results.push({ approvalId, ok: false, status: error.status, code: error.reason, message: error.message });
      }
    }
    feed.poke();
    return c.json({ results });
  });

  routes.get('/runs/:id', async (c) => {
    const principal = c.get('principal');
    requireDeskReader(principal);
    const runId = c.req.param('id');
    const run = await dependencies.runs.find(runId);
    if (run === undefined || run.tenantId !== principal.tenantId) throw notFound('run', runId);
    const events = await readAllEvents(dependencies, runId);
    const audit = isAuditReader(dependencies.audit)
      ? (await dependencies.audit.listAudit({ runId })).filter((row) => row.tenantId === run.tenantId)
      : [];
    const approvals = await dependencies.approvals.listApprovals({ runId });
    const session = await dependencies.sessions.load(run.sessionId);
    const policyOf = toolFieldPolicies();
    const calls = storedCalls({
      messages: session?.tenantId === run.tenantId ? session.messages : [],
      show: (tool, args) => displayArguments(args, policyOf(dependencies.tools.get(tool))),
    });
    return c.json({
      run: {
        runId: run.runId,
        sessionId: run.sessionId,
        status: run.status,
        requestedBy: run.principal.userId ?? null,
        startedAt: new Date(run.startedAt).toISOString(),
        lastSeq: events.at(-1)?.seq ?? 0,
      },
      steps: runTimeline({ events, audit, approvals, calls }).map((step) => {
        if (step.kind !== 'tool') return step;
        const registered = dependencies.tools.get(step.tool);
        return {
          ...step,
          display: shownFieldDisplays({ display: registered?.definition.display, shown: step.arguments ?? {} }),
          answer: step.answer === null ? null : shownAnswer({ content: step.answer, policy: policyOf(registered) }),
        };
      }),
    });
  });

  routes.get('/audit', async (c) => {
    const principal = c.get('principal');
    requireDeskReader(principal);
    const audit = dependencies.audit;
    if (!isAuditReader(audit)) {
      throw new HttpError({ status: 404, reason: 'audit_unreadable', message: 'this audit log cannot be read back' });
    }
    const filter: AuditFilter = {
      tool: text(c.req.query('tool')),
      outcome: text(c.req.query('outcome')),
      user: text(c.req.query('user')),
      from: time(c.req.query('from'), 'from'),
      to: time(c.req.query('to'), 'to'),
    };
    const rows = filterAuditRows({
      rows: await audit.listAudit(),
      tenantId: principal.tenantId,
      filter,
      limit: maxAuditRows,
    });
    const chain = tenantChainStatus({ report: await audit.verifyChain(), tenantId: principal.tenantId });
    if (c.req.query('format') === 'ndjson') {
      const day = new Date().toISOString().slice(0, 10);
      c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
      c.header('Content-Disposition', `attachment; filename="arbiter-audit-${day}.ndjson"`);
      c.header('X-Audit-Chain', chain.status);
      return c.body(rows.map((row) => `${JSON.stringify(visibleRow(row))}\n`).join(''));
    }
    const displayOf = (row: AuditRecord) => dependencies.tools.get(row.tool)?.definition.display;
    return c.json({
      chain,
      rows: rows.map((row) => ({
        ...visibleRow(row),
        display: shownFieldDisplays({ display: displayOf(row), shown: row.arguments }),
      })),
      limit: maxAuditRows,
    });
  });

  return Object.assign(routes, { feed });
}

/**
 * Throws the 403 for a caller who may not read runs and the audit on the
 * desk (neither `approver` nor `auditor`).
 *
 * @example
 * requireDeskReader(c.get('principal'));
 */
export function requireDeskReader(principal: Principal): void {
  if (!principal.roles.includes(approverRole) && !principal.roles.includes(auditorRole)) {
    throw new HttpError({
      status: 403,
      reason: 'forbidden',
      message: `the desk's runs and audit need the "${approverRole}" or "${auditorRole}" role`,
    });
  }
}

/** Every stored event of a run, in pages. */
async function readAllEvents(dependencies: ServerDependencies, runId: string): Promise<ExternalEvent[]> {
  const events: ExternalEvent[] = [];
  const page = 1000;
  for (;;) {
    const batch = await dependencies.log.readEvents({ runId, afterSeq: events.at(-1)?.seq ?? 0, limit: page });
    events.push(...batch);
    if (batch.length < page) return events;
  }
}

/** An audit row as the desk shows it: the redacted arguments, never anything else of the call. */
function visibleRow(row: AuditRecord) {
  return {
    auditId: row.auditId,
    at: new Date(row.at).toISOString(),
    runId: row.runId,
    sessionId: row.sessionId ?? null,
    toolCallId: row.toolCallId,
    tool: row.tool,
    sideEffect: row.sideEffect,
    arguments: row.arguments,
    argumentsHash: row.argumentsHash,
    decision: row.decision,
    rule: row.rule ?? null,
    approver: row.approver ?? null,
    userId: row.userId ?? null,
    outcome: row.outcome,
    /** For a replay: the call that ran first under the same idempotency key. */
    replayOf: row.replayOf === undefined ? null : { runId: row.replayOf.runId, toolCallId: row.replayOf.toolCallId },
    durationMs: row.durationMs,
  };
}

function text(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed.slice(0, 200);
}

function time(value: string | undefined, field: string): number | undefined {
  const given = text(value);
  if (given === undefined) return undefined;
  const parsed = /^\d{1,15}$/.test(given) ? Number(given) : Date.parse(given);
  if (Number.isNaN(parsed)) {
    throw new HttpError({
      status: 400,
      reason: 'invalid_query',
      message: `"${field}" must be a date (ISO 8601) or milliseconds since the epoch`,
      details: { field },
    });
  }
  return parsed;
}

function invalid(field: string, message: string): HttpError {
  return new HttpError({ status: 400, reason: 'invalid_body', message, details: { field } });
}
