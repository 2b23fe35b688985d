import { Hono } from 'hono';
import { HttpError } from '../errors/http-error.js';
import type { ServerRun } from '../store/server-run.js';
import { visibleFailure } from './run-failure.js';
import { canSee, notFound, type ServerDependencies, type ServerEnv } from './server-env.js';
import { parseLastEventId, streamRunEvents } from './stream-run-events.js';

/**
 * `GET /v1/runs/:id` (where a run stands) and `GET /v1/runs/:id/events`
 * (its SSE stream, resumable with `Last-Event-ID`). A caller holds at most
 * `maxStreams` streams at once (`PrincipalLimits`: 429 with `Retry-After`).
 *
 * @example
 * app.route('/v1/runs', runRoutes(dependencies));
 */
export function runRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const { runs, manager, metrics, limits } = dependencies;
  const routes = new Hono<ServerEnv>();

  const visibleRun = async (principal: ServerEnv['Variables']['principal'], id: string): Promise<ServerRun> => {
    const run = await runs.find(id);
    if (run === undefined || !canSee(principal, { tenantId: run.tenantId, userId: run.principal.userId })) {
      throw notFound('run', id);
    }
    return run;
  };

  routes.get('/:id', async (c) => {
    const principal = c.get('principal');
    const run = await visibleRun(principal, c.req.param('id'));
    return c.json({
      runId: run.runId,
      sessionId: run.sessionId,
      status: run.status,
      lastSeq: await manager.lastSeq(run.runId),
      failure: visibleFailure({ failure: run.failure, principal }) ?? null,
    });
  });

  routes.get('/:id/events', async (c) => {
    const run = await visibleRun(c.get('principal'), c.req.param('id'));
    const afterSeq = parseLastEventId(c.req.header('last-event-id') ?? c.req.query('lastEventId'));
    if (afterSeq === undefined) {
      throw new HttpError({
        status: 400,
        reason: 'invalid_last_event_id',
        message: 'Last-Event-ID must be a non-negative integer (the seq of the last event received)',
      });
    }
    const release = await limits.openStream(c.get('principal'));
    return streamRunEvents(c, {
      onClose: release,
      runId: run.runId,
      status: run.status,
      afterSeq,
      manager,
      ...(dependencies.followRun === undefined ? {} : { follow: dependencies.followRun }),
      metrics,
      heartbeatMs: dependencies.heartbeatMs,
      maxQueued: dependencies.maxQueuedEvents,
    });
  });

  return routes;
}
