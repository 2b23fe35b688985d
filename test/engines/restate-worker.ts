/**
 * One Restate worker of the engine tests: arbiter's shop as the session and
 * approvals virtual objects, served over h2c on 127.0.0.1:WORKER_PORT, on
 * the PostgreSQL the test started (arbiter's tables in ARBITER_SCHEMA).
 * Prints `ready` once it listens; SIGTERM closes it and exits 0 (a deploy's
 * stop); SIGKILL is the crash.
 *
 * Environment: ARBITER_URL, ARBITER_SCHEMA, WORKER_PORT, WORKER_BUILD (a label:
 * the "new version" of a deploy), HOLD_WRITES=1 (a write waits, once its
 * effect is committed, until the process dies).
 */
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { restateAgent } from '../../src/restate.js';
import { environment, openWorkerAgent } from './worker-agent.js';

const worker = await openWorkerAgent();
const { services } = restateAgent({ agent: worker.agent });
const server = http2.createServer(restate.createEndpointHandler({ services }));
await new Promise<void>((resolve) => server.listen(Number(environment('WORKER_PORT')), '127.0.0.1', resolve));
process.stdout.write(`ready ${worker.build} ${process.pid}\n`);

process.once('SIGTERM', () => {
  server.close();
  void worker.close().finally(() => process.exit(0));
});
