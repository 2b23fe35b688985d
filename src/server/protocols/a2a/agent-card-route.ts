import { createHash } from 'node:crypto';
import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import type { Context } from 'hono';
import type { ServerDependencies } from '../../server-env.js';
import { arbiterAgentCard } from './arbiter-agent-card.js';

/** How long a client or cache may reuse the card before asking again (with its `ETag`). */
export const agentCardMaxAgeSeconds = 300;

/**
 * `GET /.well-known/agent-card.json`: the Agent Card (`arbiterAgentCard`),
 * public as A2A discovery expects, its endpoint on the request's own origin,
 * in the specification's JSON form (`AgentCard.toJSON`: the bearer scheme
 * as `httpAuthSecurityScheme`, not the SDK's in-memory `{ $case, value }`),
 * with `Cache-Control: public, max-age=300`, a weak `ETag` of its bytes and
 * `Last-Modified` (when the server loaded its tools); a request whose
 * `If-None-Match` names that tag (or, without one, whose `If-Modified-Since`
 * is not older) is answered 304.
 *
 * @example
 * app.get(agentCardPath, agentCardRoute(dependencies.tools));
 */
export function agentCardRoute(tools: ServerDependencies['tools']) {
  // The card changes only with the tools module, which is loaded once: it is as old as the route.
  const lastModified = new Date(Math.floor(Date.now() / 1000) * 1000);
  return (c: Context) => {
    const card = arbiterAgentCard({ tools, url: new URL('/v1/a2a', c.req.url).href });
    const body = JSON.stringify(AgentCard.toJSON(card));
    const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', `public, max-age=${agentCardMaxAgeSeconds}`);
    c.header('Last-Modified', lastModified.toUTCString());
    if (
      notModified({
        ifNoneMatch: c.req.header('if-none-match'),
        ifModifiedSince: c.req.header('if-modified-since'),
        etag,
        lastModified,
      })
    ) {
      return c.body(null, 304);
    }
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  };
}

/**
 * Whether the client's copy is current (RFC 9110, 13.1): `If-None-Match`
 * (a list of tags, weak comparison, or `*`) decides when sent;
 * `If-Modified-Since` only without it.
 */
function notModified({
  ifNoneMatch,
  ifModifiedSince,
  etag,
  lastModified,
}: {
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  etag: string;
  lastModified: Date;
}): boolean {
  if (ifNoneMatch !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}

/** Where A2A clients look for the card. */
export const agentCardPath = `/${AGENT_CARD_PATH}`;
