/**
 * The server of the crash-resume browser test, in a process of its own so
 * the test can kill it with SIGKILL and start another on the same data
 * directory. It resumes interrupted runs as it starts (the server's
 * default), answers slowly enough to be killed mid-answer, and prints
 * `listening URL` once it listens (on a free port).
 *
 * node --import tsx test/browser/resumable-server.ts DIRECTORY
 */
import { startServer } from '../../src/server/start-server.js';

const dataDir = process.argv[2];
if (dataDir === undefined) {
  process.stderr.write('usage: resumable-server DIRECTORY\n');
  process.exit(2);
}
const running = await startServer({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  heartbeatMs: 1000,
  shutdownGraceMs: 200,
  streamingDelay: { firstTokenMs: 200, deltaMs: 120 },
});
process.stdout.write(`listening ${running.url}\n`);
