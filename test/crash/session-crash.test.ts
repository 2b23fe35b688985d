/**
 * Durable sessions under SIGKILL. A driver process runs the planned shop
 * conversation (three turns, parallel reads, `add_order_note` writes)
 * through `runSession` on a file database and is killed: at every crash
 * point in turn (after each store write, inside each tool, right after each
 * note commits), and at random times. Fresh processes resume
 * (`runSession({ resume: true })`) until the conversation completes. See
 * `shop-conversation.ts` for what "executed" means.
 *
 * CRASH_TRIALS=n runs n random trials (default 20); CRASH_POINTS=all|n
 * tests every crash point or every n-th (default all).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/chat-message.js';
import { toolPairingProblems } from '../../src/core/message-units.js';
import type { Session } from '../../src/store/session-store.js';
import { SqliteSessionStore } from '../../src/store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { prepareDriver, runTrial, type TrialReport } from './crash-harness.js';
import { crashSessionId, driveConversation, plannedNotes } from './shop-conversation.js';

const randomTrials = Number(process.env.CRASH_TRIALS ?? 20);
const pointStride =
  process.env.CRASH_POINTS === undefined || process.env.CRASH_POINTS === 'all' ? 1 : Number(process.env.CRASH_POINTS);
const lanes = 4;

const root = mkdtempSync(join(tmpdir(), 'arbiter-crash-'));
const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', `arbiter-crash-${process.pid}`);
let driver: { command: string; args: string[] };
let reference: { session: Session; points: number };

beforeAll(async () => {
  mkdirSync(cache, { recursive: true });
  driver = await prepareDriver(cache);
  const directory = join(root, 'reference');
  mkdirSync(directory);
  await driveConversation({ directory, logFile: join(directory, 'log.txt'), latency: false });
  const done = readFileSync(join(directory, 'log.txt'), 'utf8').match(/^done (\d+)$/m);
  reference = { session: await loadSession(directory), points: Number(done?.[1]) };
}, 60_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

async function loadSession(directory: string): Promise<Session> {
  const store = openSqliteStore({ path: join(directory, 'arbiter.db') });
  try {
    const session = await new SqliteSessionStore({ database: store.database }).load(crashSessionId);
    if (session === undefined) throw new Error(`no session in ${directory}`);
    return session;
  } finally {
    store.close();
  }
}

/** Everything a finished trial must satisfy; returns how often a note was replayed after a crash. */
async function checkTrial(directory: string, report: TrialReport): Promise<{ replays: number }> {
  const session = await loadSession(directory);
  // The same conversation as the uninterrupted run: nothing lost, duplicated or reordered.
  expect(session.messages).toEqual(reference.session.messages);
  expect(session.status).toBe('idle');
  expect(session.activeRun).toBeUndefined();
  // Budgets: every model call counted once, whatever was killed.
  expect({ steps: session.stepCount, usage: session.usage }).toEqual({
    steps: reference.session.stepCount,
    usage: reference.session.usage,
  });
  expect(session.version).toBeGreaterThanOrEqual(reference.session.version);
  expectWellFormed(session.messages);
  const arbiter = new Database(join(directory, 'arbiter.db'), { readonly: true });
  const positions = arbiter
    .prepare('SELECT position FROM session_messages WHERE session_id = ? ORDER BY position')
    .all(crashSessionId) as { position: number }[];
  arbiter.close();
  expect(positions.map((row) => row.position)).toEqual(session.messages.map((_, index) => index));

  // No tool body ran while the journal already held its result.
  expect(report.log.filter((line) => line.startsWith('DUPLICATE'))).toEqual([]);
  // Each note committed once: in the log, and in the shop's notes table.
  const commits = report.log.filter((line) => line.startsWith('commit ')).map((line) => line.slice(7));
  expect(new Set(commits).size).toBe(commits.length);
  const shop = new Database(join(directory, 'shop.db'), { readonly: true });
  const notes = shop
    .prepare(
      "SELECT note, COUNT(*) AS copies FROM order_notes WHERE note LIKE 'crash-note%' GROUP BY note ORDER BY note",
    )
    .all() as { note: string; copies: number }[];
  shop.close();
  expect(notes).toEqual([...plannedNotes].sort().map((note) => ({ note, copies: 1 })));
  // Counters seen from outside never went backwards.
  expect(report.regressions).toEqual([]);
  return { replays: report.log.filter((line) => line.startsWith('replay ')).length };
}

function expectWellFormed(messages: readonly ChatMessage[]): void {
  expect(toolPairingProblems(messages, { allowUnansweredTail: false })).toEqual([]);
  const answers = messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []));
  expect(new Set(answers).size).toBe(answers.length);
}

async function inLanes<Input, Output>(inputs: readonly Input[], work: (input: Input) => Promise<Output>) {
  const outputs: Output[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < inputs.length) {
        const index = next;
        next += 1;
        outputs[index] = await work(inputs[index] as Input);
      }
    }),
  );
  return outputs;
}

describe('a session killed with SIGKILL and resumed by new processes', () => {
  it('completes the same conversation whichever crash point the process dies at', async () => {
    expect(reference.points).toBeGreaterThan(40);
    const points = Array.from({ length: reference.points }, (_, index) => index + 1).filter(
      (point) => (point - 1) % pointStride === 0,
    );
    const results = await inLanes(points, async (crashAt) => {
      const directory = join(root, `point-${crashAt}`);
      const report = await runTrial({ directory, driver, crashAt });
      const checked = await checkTrial(directory, report).catch((error: unknown) => {
        throw new Error(`crash point ${crashAt}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      });
      rmSync(directory, { recursive: true, force: true });
      return { crashAt, ...report, ...checked };
    });
    expect(results.every((result) => result.kills === 1 && result.resumes === 1)).toBe(true);
    const replays = results.reduce((total, result) => total + result.replays, 0);
    // The window between a note's commit and its recorded result was hit, and the note was not added twice.
    expect(replays).toBeGreaterThan(0);
    console.info(
      `crash points: ${results.length} trials, ${results.length} kills, ${results.length} resumes, ` +
        `${replays} notes replayed after a crash between their commit and their recorded result`,
    );
  }, 240_000);

  it(`completes the same conversation after ${randomTrials} trials of kills at random times`, async () => {
    // Kill times are drawn within how long an uninterrupted process works (from its `ready`, as kills
    // are timed) on this machine now, so most kills land mid-run; trials continue (boundedly) until
    // there were as many kills as trials.
    const timed = join(root, 'timed');
    const startedAt = performance.now();
    const { lastRunMs } = await runTrial({ directory: timed, driver });
    const fullRunMs = lastRunMs ?? performance.now() - startedAt;
    rmSync(timed, { recursive: true, force: true });
    const maxKillDelayMs = Math.max(20, fullRunMs * 0.8);
    const results: (TrialReport & { observations: number })[] = [];
    for (
      let round = 0;
      round < 3 && results.reduce((total, result) => total + result.kills, 0) < randomTrials;
      round += 1
    ) {
      const trials = Array.from({ length: randomTrials }, (_, index) => round * randomTrials + index);
      results.push(
        ...(await inLanes(trials, async (trial) => {
          const directory = join(root, `random-${trial}`);
          const report = await runTrial({ directory, driver, randomKills: 1 + (trial % 3), maxKillDelayMs });
          const checked = await checkTrial(directory, report).catch((error: unknown) => {
            throw new Error(`random trial ${trial}: ${error instanceof Error ? error.message : String(error)}`, {
              cause: error,
            });
          });
          rmSync(directory, { recursive: true, force: true });
          return { ...report, ...checked };
        })),
      );
    }
    const kills = results.reduce((total, result) => total + result.kills, 0);
    const resumes = results.reduce((total, result) => total + result.resumes, 0);
    const observations = results.reduce((total, result) => total + result.observations, 0);
    expect(results.length).toBeGreaterThanOrEqual(randomTrials);
    expect(kills).toBeGreaterThanOrEqual(randomTrials);
    console.info(
      `random kills: ${results.length} trials, ${kills} kills, ${resumes} resumes, ` +
        `${results.reduce((total, result) => total + result.missedKills, 0)} processes finished before their kill, ` +
        `${observations} counter observations (kill delays up to ${Math.round(maxKillDelayMs)} ms)`,
    );
  }, 240_000);

  it('counts the budget spent before the restart: the resumed process stops without calling the model', async () => {
    const directory = join(root, 'budget');
    // Point 11 is right after the second model answer is committed (steps 2, 70 tokens), before its tools run.
    const crashed = await runTrial({
      directory,
      driver,
      crashAt: 11,
      extraArgs: ['--turns', '1'],
      firstProcessOnly: true,
    });
    expect(crashed.kills).toBe(1);
    const before = await loadSession(directory);
    expect(before.activeRun).toMatchObject({ steps: 2, usage: { totalTokens: 70 } });

    const resumed = await runTrial({ directory, driver, extraArgs: ['--turns', '1', '--token-budget', '70'] });
    const afterCrash = resumed.log.slice(resumed.log.findIndex((line) => line.startsWith('crash')) + 1);
    expect(afterCrash.filter((line) => line.startsWith('model'))).toEqual([]);
    const result = afterCrash.find((line) => line.startsWith('result'));
    expect(JSON.parse(result?.slice(7) ?? '{}')).toMatchObject({
      stopReason: 'token_budget',
      steps: 2,
      usage: { totalTokens: 70 },
    });
    // The answered calls of the interrupted step were still answered, each once.
    const session = await loadSession(directory);
    expectWellFormed(session.messages);
    expect(session.stepCount).toBe(2);
  }, 60_000);
});
