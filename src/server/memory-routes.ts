import { Hono } from 'hono';
import type { MemoryStore } from '../core/memory-store.js';
import { HttpError } from '../errors/http-error.js';
import { exportFacts } from '../memory/export-facts.js';
import type { ServerEnv } from './server-env.js';

/**
 * A person's rights over what the server remembers about them, always the
 * bearer's own facts (tenant and user of the principal; no role, approver
 * included, reaches another user's):
 *
 * - `GET /v1/memory`: the current facts, sensitive values redacted;
 * - `GET /v1/memory/export`: every version (superseded, retracted,
 *   expired until purged), sensitive values redacted;
 * - `GET /v1/memory/:factId`: one fact, value included; another user's: 404;
 * - `DELETE /v1/memory/:factId`: forgets every version of that fact's key; another user's: 404;
 * - `DELETE /v1/memory?all=true`: forgets everything about the caller.
 *
 * @example
 * app.route('/v1/memory', memoryRoutes({ memory: backend.memory }));
 */
export function memoryRoutes({ memory }: { memory: MemoryStore }): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  const ownerOf = (principal: { tenantId: string; userId: string }) => ({
    tenantId: principal.tenantId,
    userId: principal.userId,
  });
  const noFact = (factId: string) =>
    new HttpError({ status: 404, reason: 'not_found', message: `no fact ${factId.slice(0, 100)}` });

  routes.get('/', async (c) =>
    c.json({ facts: exportFacts({ facts: await memory.list(ownerOf(c.get('principal'))) }) }),
  );
  routes.get('/export', async (c) =>
    c.json({ facts: exportFacts({ facts: await memory.list({ ...ownerOf(c.get('principal')), history: true }) }) }),
  );
  routes.get('/:factId', async (c) => {
    const factId = c.req.param('factId');
    const fact = await memory.get({ ...ownerOf(c.get('principal')), factId });
    if (fact === undefined) throw noFact(factId);
    return c.json({ fact: exportFacts({ facts: [fact], redactSensitive: false })[0] });
  });
  routes.delete('/:factId', async (c) => {
    const factId = c.req.param('factId');
    const forgotten = await memory.forget({ ...ownerOf(c.get('principal')), factId });
    if (forgotten === 0) throw noFact(factId);
    return c.json({ forgotten });
  });
  routes.delete('/', async (c) => {
    if (c.req.query('all') !== 'true') {
      throw new HttpError({
        status: 400,
        reason: 'invalid_request',
        message:
          'to forget everything remembered about you, ask DELETE /v1/memory?all=true; one fact: DELETE /v1/memory/:factId',
      });
    }
    return c.json({ forgotten: await memory.forget(ownerOf(c.get('principal'))) });
  });
  return routes;
}
