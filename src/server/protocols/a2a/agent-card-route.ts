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
 * with `Cache-Control: public, max-age=300` and a weak `ETag` of its bytes;
 * a request whose `If-None-Match` names that tag is answered 304.
 *
 * @example
 * app.get(agentCardPath, agentCardRoute(dependencies.tools));
 */
export function agentCardRoute(tools: ServerDependencies['tools']) {
  return (c: Context) => {
    const card = arbiterAgentCard({ tools, url: new URL('/v1/a2a', c.req.url).href });
    const body = JSON.stringify(AgentCard.toJSON(card));
    const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', `public, max-age=${agentCardMaxAgeSeconds}`);
    const wanted = c.req.header('if-none-match');
    if (wanted !== undefined && matchesEtag(wanted, etag)) return c.body(null, 304);
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  };
}

/** `If-None-Match` against the card's tag: a list of tags (weak comparison) or `*`. */
function matchesEtag(header: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/** Where A2A clients look for the card. */
export const agentCardPath = `/${AGENT_CARD_PATH}`;
