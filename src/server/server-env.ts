import type { Awaitable } from '../core/awaitable.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import { HttpError } from '../errors/http-error.js';
import type { EventLog } from '../events/event-log.js';
import type { AuditLog } from '../gate/audit-log.js';
import type { SessionStore } from '../store/session-store.js';
import type { ToolSet } from '../tools/tool-registry.js';
import type { RunManager } from './run-manager.js';
import type { ServerMetrics } from './server-metrics.js';
import type { ServerApprovals, ServerLimits, ServerRunRecords } from './server-storage.js';
import type { FollowRun } from './stream-run-events.js';

/** What hono keeps per request: the authenticated caller. */
export interface ServerEnv {
  Variables: { principal: Principal };
}

/** What the route handlers share. */
export interface ServerDependencies {
  readonly sessions: SessionStore;
  readonly runs: ServerRunRecords;
  readonly log: EventLog;
  readonly approvals: ServerApprovals;
  /**
   * How an SSE connection replays a run's logged events after a seq and then
   * follows it live, each event once; default: the manager's own (replay and
   * follow in one synchronous step). The PostgreSQL server follows the event
   * table, so a run executing on another node streams here too.
   */
  readonly followRun?: FollowRun;
  /**
   * What a decided approval does to its run once none is pending; default:
   * the manager resumes it here. The PostgreSQL server requeues it instead,
   * for whichever node claims it.
   */
  readonly resumeRun?: (runId: string) => Awaitable<void>;
  readonly manager: RunManager;
  readonly metrics: ServerMetrics;
  /** The audit log the runs write to; the routes add what people tried (a refused self-approval). */
  readonly audit: AuditLog;
  readonly tools: ToolSet;
  readonly limits: ServerLimits;
  /** Whether an approver may decide approvals requested in his own sessions (the four-eyes rule off). */
  readonly allowSelfApproval: boolean;
  readonly systemPrompt: ((locale: Locale) => string | undefined) | undefined;
  readonly heartbeatMs: number;
  readonly maxQueuedEvents: number;
}

/** The role that may decide approvals of its tenant. */
export const approverRole = 'approver';

/** The role that may read its tenant's runs and audit on the desk, and decide nothing. */
export const auditorRole = 'auditor';

/**
 * Whether a caller may see what belongs to `owner`: same tenant, and the
 * owner themself or an approver. Anything else is answered as if it did not
 * exist, so ids of other tenants cannot be probed.
 *
 * @example
 * if (!canSee(principal, { tenantId: session.tenantId, userId: session.userId })) throw notFound('session', id);
 */
export function canSee(
  principal: Principal,
  owner: { readonly tenantId: string | undefined; readonly userId: string | undefined },
): boolean {
  if (owner.tenantId !== principal.tenantId) return false;
  return owner.userId === principal.userId || principal.roles.includes(approverRole);
}

/**
 * The 404 for an id that does not exist or is not the caller's to see.
 *
 * @example
 * throw notFound('run', runId);
 */
export function notFound(kind: 'session' | 'run' | 'approval', id: string): HttpError {
  return new HttpError({ status: 404, reason: 'not_found', message: `no ${kind} ${id}` });
}
