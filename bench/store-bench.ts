/**
 * The session store on a file database in a temporary directory (WAL,
 * `synchronous = NORMAL`, as `openSqliteStore` opens it): how many run
 * steps it commits per second (each commit one `BEGIN IMMEDIATE`
 * transaction with the step's messages and counters), and how long a
 * process takes to load a 1,000-message session to resume it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '../src/core/chat-message.js';
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

export async function runStoreBench(): Promise<{ lines: string[]; ratios: Record<string, number> }> {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-store-bench-'));
  const store = openSqliteStore({ path: join(directory, 'arbiter.db') });
  try {
    const sessions = new SqliteSessionStore({ database: store.database });

    const running = await sessions.create({ sessionId: 'commits' });
    await sessions.beginRun({ sessionId: running.id, runId: 'run-1', messages: [{ role: 'user', content: 'go' }] });
    const journal = sessions.journal({ sessionId: running.id });
    let step = 0;
    const commits = await measure({
      iterations: 500,
      operation: () => {
        step += 1;
        const [call, answer] = stepMessages(step);
        const usage = { inputTokens: 100 * step, outputTokens: 10 * step, totalTokens: 110 * step };
        journal.commitStep({ runId: 'run-1', sessionId: running.id, appended: [call], steps: step, usage });
        journal.commitStep({ runId: 'run-1', sessionId: running.id, appended: [answer], steps: step, usage });
      },
    });
    const commitsPerSecond = commits.operationsPerSecond * 2;

    const long = await sessions.create({ sessionId: 'long' });
    const messages: ChatMessage[] = [];
    for (let index = 0; messages.length < resumeMessages; index += 1) {
      messages.push(
        { role: 'user', content: `Question ${index} about my order, please check it.` },
        ...stepMessages(index),
      );
      messages.push({
        role: 'assistant',
        content: `Order SO2026${index} shipped with SF Express and arrives tomorrow.`,
      });
    }
    await sessions.append({ sessionId: long.id, messages: messages.slice(0, resumeMessages) });
    const load = await measure({
      iterations: 20,
      operation: async () => {
        const loaded = await sessions.load(long.id);
        if (loaded?.messages.length !== resumeMessages) throw new Error('the long session did not load whole');
      },
    });
    const loadMilliseconds = load.nanosecondsPerOperation / 1e6;

    return {
      lines: [
        'store: SQLite file database in a temp directory, WAL, synchronous=NORMAL, median of 7 rounds',
        `  step commits (1 message + counters, BEGIN IMMEDIATE)  ${formatRate(commitsPerSecond)} (${formatMicroseconds(1e9 / commitsPerSecond)} each)`,
        `  resume: load a ${resumeMessages}-message session            ${loadMilliseconds.toFixed(2)} ms`,
      ],
      ratios: { storeStepCommitsPerSecond: commitsPerSecond, storeResumeLoadMilliseconds: loadMilliseconds },
    };
  } finally {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runStoreBench();
  for (const line of lines) console.log(line);
}
