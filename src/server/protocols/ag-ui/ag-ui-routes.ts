import { EventType } from '@ag-ui/core';
import { Hono } from 'hono';
import type { Principal } from '../../../core/principal.js';
import { HttpError } from '../../../errors/http-error.js';
import { SessionConflictError } from '../../../errors/session-conflict-error.js';
import type { EventLog } from '../../../events/event-log.js';
import type { ExternalEvent } from '../../../events/external-event.js';
import { displayArguments, toolFieldPolicy } from '../../../events/sensitive-fields.js';
import type { Session } from '../../../store/session-store.js';
import { decideApproval } from '../../decide-approval.js';
import { readJsonBody } from '../../read-json-body.js';
import { isTerminalEvent } from '../../run-manager.js';
import type { ServerDependencies, ServerEnv } from '../../server-env.js';
import { AgUiEventTranslator } from './ag-ui-event-translator.js';
import { agUiRunView } from './ag-ui-run-view.js';
import { type AgUiDecision, parseRunAgentInput } from './parse-run-agent-input.js';
import { streamAgUiRun } from './stream-ag-ui-run.js';
import { openThreadSession } from './thread-session.js';

/** Where an AG-UI run's part of an arbiter run begins: kept so the same `runId` posted again replays it. */
interface Segment {
  readonly sessionId: string;
  readonly arbiterRunId: string;
  readonly afterSeq: number;
  readonly usageBefore: { readonly inputTokens: number; readonly outputTokens: number };
}

/** AG-UI runs this process remembers for replay, oldest forgotten first. */
const rememberedSegments = 10_000;

/**
 * `POST /v1/ag-ui`: arbiter as an AG-UI agent. Takes a `RunAgentInput`
 * (see `parseRunAgentInput`) and answers with the run's AG-UI events as
 * SSE, written by `@ag-ui/encoder` (see `AgUiEventTranslator`).
 *
 * - `threadId` names a session of the caller's tenant (see
 *   `threadSessionId`), created on the first message; the owner sends
 *   messages, an approver of the tenant may answer its interrupts, anyone
 *   else gets 404 as if it did not exist.
 * - A new user message (the last of `messages`) starts an arbiter run (409
 *   `run_active` while the thread's run is still going, as for
 *   `POST /v1/sessions/:id/messages`).
 * - A call that waits for a person ends the AG-UI run with the interrupt
 *   outcome, one interrupt per pending approval (id = approval id, the
 *   tool, its arguments fit to show, the rule's reason).
 * - `resume` answers them: each pending approval is decided exactly as
 *   `POST /v1/approvals/:id` decides it (`decideApproval`: approver role,
 *   four eyes, the tenant, audit; the decision binds the stored argument
 *   hash), and the stream continues the run from where the interrupt left
 *   it. An entry for an approval already decided (by someone else) decides
 *   nothing: it picks up the run after the interrupt, so the customer who
 *   asked sees how it went on.
 * - The same `runId` posted again on the same thread (a reload, a dropped
 *   connection) replays that AG-UI run from the event log and follows it
 *   live, with the same message ids, while this process remembers it.
 *
 * @example
 * app.route('/v1/ag-ui', agUiRoutes(dependencies));
 */
export function agUiRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const { manager, limits, metrics } = dependencies;
  const segments = new Map<string, Segment>();
  const remember = (key: string, segment: Segment) => {
    segments.set(key, segment);
    if (segments.size > rememberedSegments) segments.delete(segments.keys().next().value as string);
  };
  const routes = new Hono<ServerEnv>();

  routes.post('/', async (c) => {
    const principal = c.get('principal');
    const request = parseRunAgentInput(await readJsonBody(c));
    const key = JSON.stringify([principal.tenantId, request.threadId, request.runId]);
    const known = segments.get(key);
    const session = await openThreadSession(dependencies, {
      principal,
      threadId: request.threadId,
      locale: request.locale,
      create: known === undefined && request.decisions.length === 0,
    });

    let segment: Segment;
    let stillPending = false;
    if (known !== undefined && known.sessionId === session.id) {
      segment = known;
    } else if (request.decisions.length > 0) {
      ({ segment, stillPending } = await answerInterrupts(dependencies, {
        principal,
        session,
        decisions: request.decisions,
      }));
    } else {
      segment = await startRun(dependencies, {
        principal,
        session,
        content: request.content ?? '',
        locale: request.locale,
      });
    }
    remember(key, segment);

    const view = agUiRunView(dependencies, { sessionId: session.id, arbiterRunId: segment.arbiterRunId });
    const translator = new AgUiEventTranslator({
      threadId: request.threadId,
      runId: request.runId,
      arbiterRunId: segment.arbiterRunId,
      view,
      // The slots as a person may see them: values under names that read like personal data redacted.
      slots: displayArguments(session.slots, toolFieldPolicy({})),
      usageBefore: segment.usageBefore,
    });
    const only = stillPending
      ? [
          {
            type: EventType.RUN_FINISHED,
            threadId: request.threadId,
            runId: request.runId,
            outcome: { type: 'interrupt' as const, interrupts: await view.interrupts() },
          },
        ]
      : undefined;
    const release = await limits.openStream(principal);
    return streamAgUiRun(c, {
      arbiterRunId: segment.arbiterRunId,
      afterSeq: segment.afterSeq,
      translator,
      ...(only === undefined ? {} : { only }),
      manager,
      ...(dependencies.followRun === undefined ? {} : { follow: dependencies.followRun }),
      metrics,
      heartbeatMs: dependencies.heartbeatMs,
      maxQueued: dependencies.maxQueuedEvents,
      onClose: release,
    });
  });

  return routes;
}

/** Starts the arbiter run of the thread owner's new message. */
async function startRun(
  dependencies: ServerDependencies,
  {
    principal,
    session,
    content,
    locale,
  }: { principal: Principal; session: Session; content: string; locale: 'en' | 'zh-CN' },
): Promise<Segment> {
  if (session.userId !== principal.userId) {
    throw new HttpError({
      status: 403,
      reason: 'forbidden',
      message: "only the thread's owner sends messages; an approver answers its interrupts with resume",
    });
  }
  await dependencies.limits.sendMessage(principal);
  try {
    const { runId } = await dependencies.manager.start({ sessionId: session.id, principal, content, locale });
    return {
      sessionId: session.id,
      arbiterRunId: runId,
      afterSeq: 0,
      usageBefore: { inputTokens: 0, outputTokens: 0 },
    };
  } catch (error) {
    if (SessionConflictError.isInstance(error) && error.activeRunId !== undefined) {
      throw new HttpError({
        status: 409,
        reason: 'run_active',
        message: `the thread's run ${error.activeRunId} is still going; wait for its end, or answer its interrupts with resume`,
        details: { activeRunId: error.activeRunId },
      });
    }
    throw error;
  }
}

/**
 * Decides the pending approvals `decisions` answer (as `POST
 * /v1/approvals/:id` would) and finds where the run's interrupt left it.
 * Every entry must name an approval of this thread, all of one run; they
 * are checked before any is decided.
 */
async function answerInterrupts(
  dependencies: ServerDependencies,
  { principal, session, decisions }: { principal: Principal; session: Session; decisions: readonly AgUiDecision[] },
): Promise<{ segment: Segment; stillPending: boolean }> {
  const { approvals } = dependencies;
  const records = await Promise.all(decisions.map((decision) => approvals.getApproval(decision.approvalId)));
  const runIds = new Set<string>();
  records.forEach((record, index) => {
    if (record === undefined || record.sessionId !== session.id) {
      throw new HttpError({
        status: 404,
        reason: 'not_found',
        message: `no interrupt ${JSON.stringify(decisions[index]?.approvalId)} on this thread`,
        details: { field: `resume.${index}.interruptId` },
      });
    }
    runIds.add(record.runId);
  });
  if (runIds.size !== 1) {
    throw new HttpError({
      status: 400,
      reason: 'invalid_run_input',
      message: '"resume" answers interrupts of different runs; answer those of the latest run',
    });
  }
  const arbiterRunId = [...runIds][0] as string;
  const left = await interruptEnd(dependencies.log, arbiterRunId, new Set(decisions.map((entry) => entry.approvalId)));
  for (const [index, decision] of decisions.entries()) {
    if (records[index]?.status !== 'pending') continue;
    await decideApproval(dependencies, {
      principal,
      approvalId: decision.approvalId,
      decision: decision.decision,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
  }
  const pending = await approvals.countPending({ runId: arbiterRunId });
  return {
    segment: { sessionId: session.id, arbiterRunId, afterSeq: left.seq, usageBefore: left.usage },
    stillPending: pending > 0,
  };
}

/**
 * The run's terminal event that followed the last `approval:required` of
 * `approvalIds` (the end of the AG-UI run those interrupts finished): its
 * seq, and the tokens the run had spent by then.
 */
async function interruptEnd(
  log: EventLog,
  runId: string,
  approvalIds: ReadonlySet<string>,
): Promise<{ seq: number; usage: { inputTokens: number; outputTokens: number } }> {
  let required: ExternalEvent | undefined;
  let end: ExternalEvent | undefined;
  let afterSeq = 0;
  for (let page = await log.readEvents({ runId, afterSeq }); page.length > 0; ) {
    for (const event of page) {
      if (event.type === 'approval:required' && approvalIds.has(event.approvalId)) {
        required = event;
        end = undefined;
      } else if (required !== undefined && end === undefined && isTerminalEvent(event)) {
        end = event;
      }
    }
    afterSeq = page.at(-1)?.seq ?? afterSeq;
    page = await log.readEvents({ runId, afterSeq });
  }
  const stop = end ?? required;
  const usage =
    end?.type === 'run:end'
      ? { inputTokens: end.usage.inputTokens, outputTokens: end.usage.outputTokens }
      : { inputTokens: 0, outputTokens: 0 };
  return { seq: stop?.seq ?? 0, usage };
}
