import { A2A_VERSION_HEADER, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from '@a2a-js/sdk/server';
import { Hono } from 'hono';
import { stream as streamBody } from 'hono/streaming';
import type { ServerDependencies, ServerEnv } from '../../server-env.js';
import { arbiterAgentCard } from './arbiter-agent-card.js';
import { ArbiterAgentExecutor } from './arbiter-agent-executor.js';
import { ArbiterTaskStore } from './arbiter-task-store.js';
import { a2aRequestSignalKey, OncePerMessageHandler } from './once-per-message-handler.js';
import { PrincipalUser } from './principal-user.js';
import { readJsonRpcRequest } from './read-json-rpc-request.js';

/**
 * `POST /v1/a2a`: arbiter as an A2A agent over JSON-RPC, answered by the
 * official SDK's `DefaultRequestHandler` and `JsonRpcTransportHandler`
 * (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`,
 * `tasks/resubscribe` as A2A 1.0 names them: SendMessage, SendStreamingMessage,
 * GetTask, CancelTask, SubscribeToTask), behind the same bearer auth as
 * every `/v1` route: the principal is the token's. Tasks are arbiter runs
 * (`ArbiterAgentExecutor`), read back from arbiter's records (`ArbiterTaskStore`);
 * a message sent again with the same `messageId` runs once (`OncePerMessageHandler`).
 * Whatever goes wrong is a JSON-RPC error object (`readJsonRpcRequest` for
 * the body); a streaming call refused before its first event (SubscribeToTask
 * on a finished task) is answered as one too, without opening a stream.
 *
 * @example
 * app.route('/v1/a2a', a2aRoutes(dependencies));
 */
export function a2aRoutes(dependencies: ServerDependencies): Hono<ServerEnv> {
  const executor = new ArbiterAgentExecutor(dependencies);
  const buses = new DefaultExecutionEventBusManager();
  const handler = new OncePerMessageHandler({
    inner: new DefaultRequestHandler(
      // The card's own URL does not matter here (versions are checked against it); the published card has the request's.
      arbiterAgentCard({ tools: dependencies.tools, url: '/v1/a2a' }),
      new ArbiterTaskStore({ sources: dependencies, manager: dependencies.manager }),
      executor,
      buses,
    ),
    sources: dependencies,
    buses,
    follower: executor,
  });
  const transport = new JsonRpcTransportHandler(handler);
  const routes = new Hono<ServerEnv>();
  routes.post('/', async (c) => {
    const read = await readJsonRpcRequest(c);
    if ('answer' in read) return c.json(read.answer);
    const { body, id } = read;
    const context = new ServerCallContext({
      user: new PrincipalUser(c.get('principal')),
      requestedVersion: c.req.header(A2A_VERSION_HEADER) ?? '1.0',
    });
    context.state.set(a2aRequestSignalKey, c.req.raw.signal);
    const failure = (error: unknown) => ({
      jsonrpc: '2.0',
      id,
      error: JsonRpcTransportHandler.mapToJSONRPCError(error),
    });
    try {
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
    } catch (error) {
      return c.json(failure(error));
    }
    const answer = await transport.handle(body, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    // A call refused before its first event (a finished task's subscription, an unknown task) is a plain
    // JSON-RPC error, as the binding wants and the SDK's own handler answers: the stream opens only on an event.
    let first: IteratorResult<unknown>;
    try {
      first = await answer.next();
    } catch (error) {
      return c.json(failure(error));
    }
    for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
    return streamBody(c, async (stream) => {
      try {
        if (first.done) return;
        await stream.write(formatSSEEvent(first.value));
        for await (const event of answer) await stream.write(formatSSEEvent(event));
      } catch (error) {
        await stream.write(formatSSEErrorEvent(failure(error)));
      }
    });
  });
  return routes;
}
