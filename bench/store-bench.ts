/**
 * The session store on a file database in a temporary directory (WAL,
 * `synchronous = NORMAL`, as `openSqliteStore` opens it) and on a local
 * PostgreSQL cluster started for the run (`synchronous_commit = off`, as
 * the tests' throwaway clusters; where initdb/pg_ctl are missing that row
 * is skipped): how many run steps each commits per second (each commit
 * one transaction with the step's messages and counters), and how long a
 * process takes to load a 1,000-message session to resume it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '../src/core/chat-message.js';
import { openPostgresBackend } from '../src/store/postgres/open-postgres-backend.js';
import {
  findPostgresBinaries,
  startPostgresCluster,
} from '../src/store/postgres/test-support/start-postgres-cluster.js';
import type { SessionStore } from '../src/store/session-store.js';
import { SqliteSessionStore } from '../src/store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { formatMicroseconds, formatRate, isMainModule, measure } from './measure.js';

const resumeMessages = 1000;

/** A step's messages as the loop commits them: an assistant turn calling one tool, then the tool's answer. */
function stepMessages(step: number): [ChatMessage, ChatMessage] {
  const id = `call_${step}`;
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id,
          type: 'function',
          function: {
            name: 'query_order',
            arguments: `{"order_id":"SO2026${String(step % 10_000).padStart(4, '0')}"}`,
          },
        },
      ],
    },
    {
      role: 'tool',
      tool_call_id: id,
      content: JSON.stringify({ order_id: `SO2026${step}`, status: 'shipped', carrier: 'SF Express', events: 3 }),
    },
  ];
}

/** Step commits per second and the time to load a long session, on one backend's session store. */
async function measureSessions(
  sessions: SessionStore,
): Promise<{ commitsPerSecond: number; loadMilliseconds: number }> {
  const running = await sessions.create({ sessionId: 'commits' });
  await sessions.beginRun({ sessionId: running.id, runId: 'run-1', messages: [{ role: 'user', content: 'go' }] });
  const journal = sessions.journal({ sessionId: running.id });
  let step = 0;
  const commits = await measure({
    iterations: 500,
    operation: async () => {
      step += 1;
      const [call, answer] = stepMessages(step);
      const usage = { inputTokens: 100 * step, outputTokens: 10 * step, totalTokens: 110 * step };
      await journal.commitStep({ runId: 'run-1', sessionId: running.id, appended: [call], steps: step, usage });
      await journal.commitStep({ runId: 'run-1', sessionId: running.id, appended: [answer], steps: step, usage });
    },
  });

  const long = await sessions.create({ sessionId: 'long' });
  const messages: ChatMessage[] = [];
  for (let index = 0; messages.length < resumeMessages; index += 1) {
    messages.push(
      { role: 'user', content: `Question ${index} about my order, please check it.` },
      ...stepMessages(index),
    );
    messages.push({ role: 'assistant', content: `Order SO2026${index} shipped with SF Express and arrives tomorrow.` });
  }
  await sessions.append({ sessionId: long.id, messages: messages.slice(0, resumeMessages) });
  const load = await measure({
    iterations: 20,
    operation: async () => {
      const loaded = await sessions.load(long.id);
      if (loaded?.messages.length !== resumeMessages) throw new Error('the long session did not load whole');
    },
  });
  return { commitsPerSecond: commits.operationsPerSecond * 2, loadMilliseconds: load.nanosecondsPerOperation / 1e6 };
}

async function measureSqlite(): Promise<{ commitsPerSecond: number; loadMilliseconds: number }> {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-store-bench-'));
  const store = openSqliteStore({ path: join(directory, 'arbiter.db') });
  try {
    return await measureSessions(new SqliteSessionStore({ database: store.database }));
  } finally {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The same on a throwaway local PostgreSQL cluster (Debian's initdb/pg_ctl), or undefined where there is none. */
async function measurePostgres(): Promise<{ commitsPerSecond: number; loadMilliseconds: number } | undefined> {
  const binaries = findPostgresBinaries();
  if (binaries === undefined) return undefined;
  const cluster = await startPostgresCluster({ binaries });
  try {
    const backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema: 'bench' });
    try {
      return await measureSessions(backend.sessions);
    } finally {
      await backend.close();
    }
  } finally {
    await cluster.stop();
  }
}

export async function runStoreBench(): Promise<{ lines: string[]; ratios: Record<string, number> }> {
  const sqlite = await measureSqlite();
  const postgres = await measurePostgres();
  const row = (label: string, figures: { commitsPerSecond: number; loadMilliseconds: number }) =>
    `  ${label.padEnd(54)}${formatRate(figures.commitsPerSecond).padStart(14)} (${formatMicroseconds(1e9 / figures.commitsPerSecond)} each)   ${figures.loadMilliseconds.toFixed(2)} ms`;
  return {
    lines: [
      `store: step commits (1 message + counters, one transaction each, awaited) and resume (load a ${resumeMessages}-message session), median of 7 rounds`,
      `  ${''.padEnd(54)}${'step commits'.padStart(14)}                  resume`,
      row('SQLite file, WAL, synchronous=NORMAL', sqlite),
      postgres === undefined
        ? '  PostgreSQL: skipped (no initdb/pg_ctl here)'
        : row('PostgreSQL 15, local cluster, synchronous_commit=off', postgres),
    ],
    ratios: {
      storeStepCommitsPerSecond: sqlite.commitsPerSecond,
      storeResumeLoadMilliseconds: sqlite.loadMilliseconds,
      ...(postgres === undefined
        ? {}
        : {
            postgresStepCommitsPerSecond: postgres.commitsPerSecond,
            postgresResumeLoadMilliseconds: postgres.loadMilliseconds,
          }),
    },
  };
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runStoreBench();
  for (const line of lines) console.log(line);
}
