import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { BarrierRelease, WorkerMessage } from './test-support/append-worker.js';

const worker = join(import.meta.dirname, 'test-support', 'append-worker.ts');
const directory = mkdtempSync(join(tmpdir(), 'arbiter-concurrency-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

type Report = Extract<WorkerMessage, { report: unknown }>['report'];

/**
 * Starts the workers and keeps their barrier: round N begins, in every
 * worker at once, when all of them have said they are ready for it.
 */
function runWorkers(args: (index: number) => string[], count: number): Promise<Report[]> {
  const children: ChildProcess[] = [];
  const ready = new Map<number, number>();
  const reports = Array.from({ length: count }, (_, index) => {
    const child = fork(worker, args(index), {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return new Promise<Report>((resolve, reject) => {
      let report: Report | undefined;
      child.on('message', (message: WorkerMessage) => {
        if ('report' in message) {
          report = message.report;
          return;
        }
        const waiting = (ready.get(message.ready) ?? 0) + 1;
        ready.set(message.ready, waiting);
        if (waiting < count) return;
        for (const each of children) if (each.connected) each.send({ go: message.ready } satisfies BarrierRelease);
      });
      child.on('error', reject);
      child.on('exit', (code) => {
        if (code === 0 && report !== undefined) resolve(report);
        else reject(new Error(`worker ${index} exited with ${code}: ${stderr}`));
      });
    });
  });
  return Promise.all(reports).finally(() => {
    for (const child of children) if (child.exitCode === null) child.kill();
  });
}

describe('SqliteSessionStore under concurrent appenders', () => {
  it('keeps every message of 50 appenders in 5 processes exactly once, and counts one version per write', async () => {
    const path = join(directory, 'arbiter.db');
    const store = openSqliteStore({ path });
    const sessions = new SqliteSessionStore({ database: store.database });
    const session = await sessions.create({ sessionId: 'shared' });
    const processes = 5;
    const connections = 10;
    const appends = 8;
    const reports = await runWorkers(
      (index) => [path, session.id, String(index), String(connections), String(appends)],
      processes,
    );

    const stored = await sessions.load(session.id);
    const writes = processes * connections * appends;
    const contents = (stored?.messages ?? []).map((message) => message.content ?? '');
    expect(contents).toHaveLength(writes);
    expect(new Set(contents).size).toBe(writes);
    for (let process_ = 0; process_ < processes; process_ += 1) {
      for (let connection = 0; connection < connections; connection += 1) {
        const mine = contents.filter((content) => content.startsWith(`p${process_}-c${connection}-`));
        // Each appender's messages are all there, in the order it wrote them.
        expect(mine).toEqual(Array.from({ length: appends }, (_, index) => `p${process_}-c${connection}-m${index}`));
      }
    }
    const positions = store.database
      .prepare('SELECT position FROM session_messages WHERE session_id = ? ORDER BY position')
      .all(session.id) as { position: number }[];
    expect(positions.map((row) => row.position)).toEqual(Array.from({ length: writes }, (_, index) => index));
    expect(stored?.version).toBe(session.version + writes);

    // The writers interleaved: each round of the barrier is one write of every appender of every process.
    const appenders = processes * connections;
    for (let round = 0; round < appends; round += 1) {
      const block = contents.slice(round * appenders, (round + 1) * appenders);
      expect(new Set(block.map((content) => content.replace(/-m\d+$/, ''))).size).toBe(appenders);
      expect(new Set(block.map((content) => content.split('-')[2]))).toEqual(new Set([`m${round}`]));
    }
    // And they conflicted: in a round, every appender that names a version read it before the round's first
    // write, so at most one of them (the first writer) was not refused at least once.
    const versionNamers = processes * Math.ceil(connections / 2);
    const clientConflicts = reports.reduce((total, report) => total + report.clientConflicts, 0);
    expect(clientConflicts).toBeGreaterThanOrEqual((versionNamers - 1) * appends);
    store.close();
  }, 90_000);
});
