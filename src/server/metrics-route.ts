import { createHash, timingSafeEqual } from 'node:crypto';
import type { Handler } from 'hono';
import type { Principal } from '../core/principal.js';
import { HttpError } from '../errors/http-error.js';
import { ServerConfigError } from '../errors/server-config-error.js';
import { minimumTokenLength } from './auth-config.js';
import type { ServerEnv } from './server-env.js';
import type { ServerMetrics } from './server-metrics.js';

/** The role whose bearer token may read its own tenant's metrics. */
export const metricsRole = 'metrics';

/**
 * `GET /metrics`, never public. `Authorization: Bearer METRICS_TOKEN` (the
 * operator's scrape token, `metricsToken`) reads everything, across
 * tenants; a bearer token whose principal has the `metrics` role reads its
 * own tenant's series only (`ServerMetrics.render({ tenantId })`). No or an
 * unknown token is a 401, a known one without the role a 403.
 *
 * @example
 * app.get('/metrics', metricsRoute({ metrics, authenticate, metricsToken: process.env.ARBITER_METRICS_TOKEN, extra: () => [] }));
 */
export function metricsRoute({
  metrics,
  authenticate,
  metricsToken,
  extra,
}: {
  metrics: ServerMetrics;
  authenticate: (authorization: string | undefined) => Principal | undefined;
  /** The scrape token for all tenants; at least `minimumTokenLength` characters. Without it only the role works. */
  metricsToken: string | undefined;
  /** More lines for the full view (e.g. the `arbiter_recent_*` gauges). */
  extra: () => readonly string[];
}): Handler<ServerEnv> {
  if (metricsToken !== undefined && metricsToken.length < minimumTokenLength) {
    throw new ServerConfigError({
      setting: 'metricsToken',
      message: `the metrics token is ${metricsToken.length} characters; it needs at least ${minimumTokenLength}`,
    });
  }
  const expected = metricsToken === undefined ? undefined : sha256(metricsToken);
  const prometheus = { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' };
  return (c) => {
    const authorization = c.req.header('authorization');
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (presented !== undefined && expected !== undefined && timingSafeEqual(sha256(presented), expected)) {
      return c.text(
        `${metrics.render()}${extra()
          .map((line) => `${line}\n`)
          .join('')}`,
        200,
        prometheus,
      );
    }
    const principal = authenticate(authorization);
    if (principal === undefined) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new HttpError({
        status: 401,
        reason: 'unauthenticated',
        message: 'reading /metrics needs the metrics token or a bearer token with the "metrics" role',
      });
    }
    if (!principal.roles.includes(metricsRole)) {
      throw new HttpError({
        status: 403,
        reason: 'forbidden',
        message: `reading /metrics needs the "${metricsRole}" role`,
      });
    }
    return c.text(metrics.render({ tenantId: principal.tenantId }), 200, prometheus);
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
