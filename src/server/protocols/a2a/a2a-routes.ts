import { A2A_VERSION_HEADER, AGENT_CARD_PATH, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { type Context, Hono } from 'hono';
import { stream as streamBody } from 'hono/streaming';
import { readJsonBody } from '../../read-json-body.js';
import type { ServerDependencies, ServerEnv } from '../../server-env.js';
import { arbiterAgentCard } from './arbiter-agent-card.js';
import { ArbiterAgentExecutor } from './arbiter-agent-executor.js';
import { ArbiterTaskStore } from './arbiter-task-store.js';
import { OncePerMessageHandler } from './once-per-message-handler.js';
import { PrincipalUser } from './principal-user.js';

/**
 * `POST /v1/a2a`: arbiter as an A2A agent over JSON-RPC, answered by the
 * official SDK's `DefaultRequestHandler` and `JsonRpcTransportHandler`
 * (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`,
 * `tasks/resubscribe` as A2A 1.0 names them: SendMessage, SendStreamingMessage,
 * GetTask, CancelTask, SubscribeToTask), behind the same bearer auth as
 * every `/v1` route: the principal is the token's. Tasks are arbiter runs
 * (`ArbiterAgentExecutor`), read back from arbiter's records (`ArbiterTaskStore`);
 * a message sent again with the same `messageId` runs once (`OncePerMessageHandler`).
 *
 * @example
 * app.route('/v1/a2a', a2aRoutes(dependencies));
 */
export function a2aRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const handler = new OncePerMessageHandler({
    inner: new DefaultRequestHandler(
      // The card's own URL does not matter here (versions are checked against it); the published card has the request's.
      arbiterAgentCard({ tools: dependencies.tools, url: '/v1/a2a' }),
      new ArbiterTaskStore({ sources: dependencies, manager: dependencies.manager }),
      new ArbiterAgentExecutor(dependencies),
    ),
    sources: dependencies,
  });
  const transport = new JsonRpcTransportHandler(handler);
  const routes = new Hono<ServerEnv>();
  routes.post('/', async (c) => {
    const body = await readJsonBody(c);
    const context = new ServerCallContext({
      user: new PrincipalUser(c.get('principal')),
      requestedVersion: c.req.header(A2A_VERSION_HEADER) ?? '1.0',
    });
    const id = typeof body === 'object' && body !== null && 'id' in body ? (body as { id: unknown }).id : null;
    try {
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
    } catch (error) {
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const answer = await transport.handle(body as Record<string, unknown>, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
    return streamBody(c, async (stream) => {
      try {
        for await (const event of answer) await stream.write(formatSSEEvent(event));
      } catch (error) {
        await stream.write(
          formatSSEErrorEvent({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }),
        );
      }
    });
  });
  return routes;
}

/**
 * `GET /.well-known/agent-card.json`: the Agent Card (`arbiterAgentCard`),
 * public as A2A discovery expects, its endpoint on the request's own origin.
 *
 * @example
 * app.get(agentCardPath, agentCardRoute(dependencies.tools));
 */
export function agentCardRoute(tools: ServerDependencies['tools']) {
  return (c: Context) => c.json(arbiterAgentCard({ tools, url: new URL('/v1/a2a', c.req.url).href }));
}

/** Where A2A clients look for the card. */
export const agentCardPath = `/${AGENT_CARD_PATH}`;
