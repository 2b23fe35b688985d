/**
 * The engines bench's Restate part: a `restate-server` of its own (npm's
 * binary, 127.0.0.1 only), a deployment served from this process with a
 * bare service (one `ctx.run` per step) and arbiter's session object, the
 * same runs timed as the other engines', each one an invocation through the
 * ingress.
 */
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import * as clients from '@restatedev/restate-sdk-clients';
import type { Principal } from '../src/core/principal.js';
import type { EngineAgentOptions } from '../src/durable/run-in-engine.js';
import { restateAgent, restateRunClient } from '../src/restate.js';
import { freePort, startRestateServer } from '../test/engines/restate-server.js';

/** `count` steps of `ctx.run` one after the other: Restate's own cost per step. */
const bareService = restate.service({
  name: 'benchBare',
  handlers: {
    run: async (context: restate.Context, count: number): Promise<number> => {
      for (let index = 0; index < count; index += 1) {
        await context.run(`bare:${index}`, async () => ({ index, ok: true }));
      }
      return count;
    },
  },
});

/** The SDK's warnings and errors only: an INFO line per invocation would bury the bench's figures. */
const quiet: restate.LoggerTransport = (meta, message, ...more) => {
  // The SDK's log levels are an enum of its types only: its values are these strings.
  const level: string = meta.level;
  if (level === 'warn' || level === 'error') console.error(message, ...more);
};

export async function measureRestate({
  agent,
  principal,
  stepsPerRun,
  timed,
}: {
  agent: EngineAgentOptions;
  principal: Principal;
  stepsPerRun: number;
  timed: (once: (index: number) => Promise<unknown>) => Promise<number>;
}): Promise<{ bareMs: number; arbiterMs: number }> {
  const { services } = restateAgent({ agent });
  const endpoint = http2.createServer(
    restate.createEndpointHandler({ services: [...services, bareService], logger: quiet }),
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  endpoint.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const server = await startRestateServer();
  try {
    const port = await freePort();
    await new Promise<void>((resolve) => endpoint.listen(port, '127.0.0.1', resolve));
    await server.register(`http://127.0.0.1:${port}`);
    const ingress = clients.connect({ url: server.ingressUrl });
    const bare = ingress.serviceClient(bareService);
    const bareMs = await timed(async () => await bare.run(stepsPerRun));
    const runs = restateRunClient({ ingress });
    const arbiterMs = await timed((index) =>
      runs.result({
        runId: `restate-${index}`,
        sessionId: `s-restate-${index}`,
        principal,
        messages: [{ role: 'user', content: 'Look the orders up.' }],
      }),
    );
    return { bareMs, arbiterMs };
  } finally {
    await server.stop();
    for (const session of sessions) session.destroy();
    await new Promise<void>((resolve) => endpoint.close(() => resolve()));
  }
}
