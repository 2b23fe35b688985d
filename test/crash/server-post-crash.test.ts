/**
 * The HTTP server under SIGKILL in the middle of
 * `POST /v1/sessions/:id/messages`. A driver process (`server-crash-driver.ts`)
 * serves the shop on a data directory; the test sends it a message and the
 * process dies: at a numbered crash point of the POST path (the request's
 * arrival, its body read, each SQLite statement run while handling it and
 * while its run goes on, the 202 handed to the socket), or at a random time
 * after the request was sent. A new server process on the same directory
 * must then bring the session back: once it settles, it is idle, every run
 * it holds has completed (a run cut off is resumed and finishes), and it
 * takes a new message whose run completes. Each process of a lane also
 * recovers the previous trial's session, so a lane is one chain of kills
 * and restarts on one directory.
 *
 * Which points: every point up to the commit of the run's beginning (the
 * session marked running, its request stored; the window where a crash
 * used to leave a session stuck), every later COMMIT, the writes of the
 * run's end (server status, session status), the 202, the last point, and
 * every n-th point besides: SERVER_CRASH_POINTS=n (default 5), or `all`
 * for every point. SERVER_CRASH_TRIALS=n random kills (default 8).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/chat-message.js';
import { toolPairingProblems } from '../../src/core/message-units.js';
import { prepareDriver } from './crash-harness.js';
import { armHeader, crashCustomerToken, followUpMessage, victimMessage } from './server-crash-plan.js';

const randomTrials = Number(process.env.SERVER_CRASH_TRIALS ?? 8);
const pointStride = process.env.SERVER_CRASH_POINTS === 'all' ? 1 : Number(process.env.SERVER_CRASH_POINTS ?? 5);
const lanes = 3;
const settleTimeoutMs = 20_000;

const root = mkdtempSync(join(tmpdir(), 'arbiter-server-crash-'));
const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', `arbiter-server-crash-${process.pid}`);
let driver: { command: string; args: string[] };
/** The reference run: how many points the POST path passes, which one is the 202, how long until the answer. */
let reference: { points: number; responsePoint: number; labels: readonly string[]; durationMs: number };

interface Driver {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the driver's `points N` line: the armed request's run finished, nobody killed it. */
  readonly finished: Promise<number>;
}

async function startDriver({
  directory,
  killAt,
  trace = false,
}: {
  directory: string;
  killAt?: number;
  trace?: boolean;
}) {
  const child = spawn(
    driver.command,
    [
      ...driver.args,
      directory,
      ...(killAt === undefined ? [] : ['--kill-at', String(killAt)]),
      ...(trace ? ['--trace'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  let onFinished: (points: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    onFinished = resolve;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = output.match(/^listening (\S+)$/m);
      if (listening?.[1] !== undefined) resolve(listening[1]);
      const points = output.match(/^points (\d+)$/m);
      if (points?.[1] !== undefined) onFinished(Number(points[1]));
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`the server exited (${code ?? signal}) before listening: ${stderr}`)),
    );
  });
  return { url, child, exited, finished } satisfies Driver;
}

type Answer = { status: number; body: Record<string, unknown> };

async function call(url: string, path: string, { body, arm = false }: { body?: unknown; arm?: boolean } = {}) {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${crashCustomerToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(arm ? { [armHeader]: '1' } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> } satisfies Answer;
}

interface SessionView {
  readonly status: string;
  readonly activeRunId: string | null;
  readonly runs: readonly { readonly runId: string; readonly status: string }[];
}

/** Polls the session until it is idle with no run still running; throws with what it saw after the timeout. */
async function settled(url: string, sessionId: string): Promise<SessionView> {
  const deadline = performance.now() + settleTimeoutMs;
  for (;;) {
    const { body } = await call(url, `/v1/sessions/${sessionId}`);
    const view = body as unknown as SessionView;
    if (view.status === 'idle' && view.runs.every((run) => run.status !== 'running')) return view;
    if (performance.now() > deadline) {
      throw new Error(`session ${sessionId} did not settle in ${settleTimeoutMs} ms: ${JSON.stringify(body)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The session recovered: settled, every run completed, and it takes a new message that completes. */
async function expectRecovered(url: string, sessionId: string): Promise<{ runsBefore: number }> {
  const before = await settled(url, sessionId);
  expect(before.runs.map((run) => run.status)).toEqual(before.runs.map(() => 'completed'));
  const sent = await call(url, `/v1/sessions/${sessionId}/messages`, { body: { content: followUpMessage } });
  expect(sent, `a new message to session ${sessionId}`).toMatchObject({ status: 202 });
  const after = await settled(url, sessionId);
  expect(after.runs.find((run) => run.runId === sent.body.runId)?.status).toBe('completed');
  return { runsBefore: before.runs.length };
}

interface Trial {
  readonly killAt?: number;
  readonly killAfterMs?: number;
}

interface TrialResult {
  readonly trial: Trial;
  /** Died by SIGKILL before the armed request's run finished. */
  readonly killed: boolean;
  /** Where, for a kill at a point. */
  readonly crash: string | undefined;
  /** The status the client got for the message, if any answer came before the kill. */
  readonly answered: number | undefined;
  /** Runs the session held when the next process had brought it back (0: the kill came before the run began). */
  readonly runsRecovered: number;
}

/** One chain of trials on one directory; returns what each trial did, after the final process checked the last one. */
async function runLane(directory: string, trials: readonly Trial[]): Promise<TrialResult[]> {
  mkdirSync(directory, { recursive: true });
  const results: Omit<TrialResult, 'runsRecovered'>[] = [];
  const recovered: number[] = [];
  const sessions: string[] = [];
  let previous: string | undefined;
  for (const trial of trials) {
    const server = await startDriver({ directory, ...(trial.killAt === undefined ? {} : { killAt: trial.killAt }) });
    if (previous !== undefined) recovered.push((await expectRecovered(server.url, previous)).runsBefore);
    const session = await call(server.url, '/v1/sessions', { body: {} });
    const sessionId = String(session.body.id);
    sessions.push(sessionId);
    const timer =
      trial.killAfterMs === undefined ? undefined : setTimeout(() => server.child.kill('SIGKILL'), trial.killAfterMs);
    const answer = await call(server.url, `/v1/sessions/${sessionId}/messages`, {
      body: { content: victimMessage },
      arm: true,
    }).catch(() => undefined);
    const outcome = await Promise.race([server.exited, server.finished.then(() => 'finished' as const)]);
    clearTimeout(timer);
    if (outcome === 'finished') server.child.kill('SIGKILL');
    const exit = await server.exited;
    expect(exit.signal).toBe('SIGKILL');
    const crash = trial.killAt === undefined ? undefined : readCrash(directory, trial.killAt);
    results.push({ trial, killed: outcome !== 'finished', crash, answered: answer?.status });
    previous = sessionId;
  }
  const last = await startDriver({ directory });
  if (previous !== undefined) recovered.push((await expectRecovered(last.url, previous)).runsBefore);
  for (const sessionId of sessions) await settled(last.url, sessionId);
  last.child.kill('SIGTERM');
  expect(await last.exited).toMatchObject({ code: 0 });
  checkStore(directory, sessions);
  return results.map((result, index) => ({ ...result, runsRecovered: recovered[index] ?? 0 }));
}

function readCrash(directory: string, killAt: number): string | undefined {
  const lines = readFileSync(join(directory, 'crash.txt'), { encoding: 'utf8', flag: 'a+' }).split('\n');
  return lines.findLast((line) => line.startsWith(`crash ${killAt} `));
}

/** What the stopped lane's database must hold: nothing running, whole conversations, runs where they begin. */
function checkStore(directory: string, sessionIds: readonly string[]): void {
  const database = new Database(join(directory, 'arbiter.db'), { readonly: true });
  try {
    const stuck = database
      .prepare("SELECT session_id FROM sessions WHERE status <> 'idle' OR active_run_id IS NOT NULL")
      .all();
    expect(stuck).toEqual([]);
    expect(database.prepare("SELECT run_id, status FROM server_runs WHERE status <> 'completed'").all()).toEqual([]);
    for (const sessionId of sessionIds) {
      const messages = (
        database
          .prepare('SELECT message FROM session_messages WHERE session_id = ? ORDER BY position')
          .all(sessionId) as { message: string }[]
      ).map((row) => JSON.parse(row.message) as ChatMessage);
      expect(toolPairingProblems(messages, { allowUnansweredTail: false })).toEqual([]);
      const users = messages.filter((message) => message.role === 'user').map((message) => message.content);
      // The message of the killed request at most once (once when its run had begun), the follow-up once.
      expect(users.filter((content) => content === victimMessage).length).toBeLessThanOrEqual(1);
      expect(users.filter((content) => content === followUpMessage)).toHaveLength(1);
      // Every user message was answered before the next one.
      messages.forEach((message, index) => {
        if (message.role !== 'user') return;
        const next = messages.findIndex((other, at) => at > index && other.role === 'user');
        const turn = messages.slice(index + 1, next === -1 ? undefined : next);
        expect(turn.at(-1)).toMatchObject({ role: 'assistant', content: expect.any(String) });
      });
      // Each run of the server begins at its own user message.
      const offsets = database
        .prepare('SELECT message_offset FROM server_runs WHERE session_id = ? ORDER BY started_at, rowid')
        .all(sessionId) as { message_offset: number }[];
      expect(offsets.map((row) => messages[row.message_offset]?.role)).toEqual(offsets.map(() => 'user'));
      expect(offsets).toHaveLength(users.length);
    }
  } finally {
    database.close();
  }
}

/** Splits trials round-robin over the lanes and runs the lanes at once. */
async function inLanes(name: string, trials: readonly Trial[]): Promise<TrialResult[]> {
  const perLane = Array.from({ length: lanes }, (_, lane) => trials.filter((_, index) => index % lanes === lane));
  const results = await Promise.all(
    perLane.map(async (laneTrials, lane) => {
      const directory = join(root, `${name}-${lane}`);
      const laneResults = await runLane(directory, laneTrials).catch((error: unknown) => {
        throw new Error(`${name} lane ${lane}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      });
      logRecoveries(directory);
      rmSync(directory, { recursive: true, force: true });
      return laneResults;
    }),
  );
  return results.flat();
}

const recoveries = new Map<string, number>();
function logRecoveries(directory: string): void {
  const lines = readFileSync(join(directory, 'server-log.txt'), { encoding: 'utf8', flag: 'a+' }).split('\n');
  for (const line of lines) {
    if (line === '') continue;
    const entry = JSON.parse(line) as { event: string; action?: string };
    if (entry.event === 'session_recovered') {
      recoveries.set(entry.action ?? '', (recoveries.get(entry.action ?? '') ?? 0) + 1);
    }
  }
}

beforeAll(async () => {
  mkdirSync(cache, { recursive: true });
  driver = await prepareDriver(cache, join(import.meta.dirname, 'server-crash-driver.ts'));
  const directory = join(root, 'reference');
  mkdirSync(directory);
  const server = await startDriver({ directory, trace: true });
  const session = await call(server.url, '/v1/sessions', { body: {} });
  const startedAt = performance.now();
  const answer = await call(server.url, `/v1/sessions/${session.body.id}/messages`, {
    body: { content: victimMessage },
    arm: true,
  });
  const durationMs = performance.now() - startedAt;
  const points = await server.finished;
  expect(answer.status).toBe(202);
  expect(await settled(server.url, String(session.body.id))).toMatchObject({ runs: [{ status: 'completed' }] });
  server.child.kill('SIGTERM');
  await server.exited;
  const labels = readFileSync(join(directory, 'points.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(line.indexOf(' ') + 1));
  const responsePoint = labels.findIndex((label) => label.startsWith('response sent')) + 1;
  reference = { points, responsePoint, labels, durationMs };
}, 60_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

describe('the server killed with SIGKILL while it handles POST /v1/sessions/:id/messages', () => {
  it('brings every session back to idle and takes a new message, whichever point of the POST path it dies at', async () => {
    const { labels } = reference;
    expect(reference.points).toBe(labels.length);
    expect(reference.responsePoint).toBeGreaterThan(5);
    const beginning =
      labels.findIndex(
        (label, index) => label === 'run COMMIT' && labels.slice(0, index).includes('run BEGIN IMMEDIATE'),
      ) + 1;
    expect(beginning).toBeGreaterThan(2);
    const landmark = (label: string) =>
      label === 'run COMMIT' || /server_runs|UPDATE sessions SET status|response sent/.test(label);
    const points = labels
      .map((label, index) => ({ label, point: index + 1 }))
      .filter(
        ({ label, point }) =>
          point <= beginning || landmark(label) || point % pointStride === 0 || point === labels.length,
      )
      .map(({ point }) => point);
    const results = await inLanes(
      'point',
      points.map((killAt) => ({ killAt })),
    );
    const killed = results.filter((result) => result.killed);
    // Each process died where it was told to: nondeterministic timing may move a late point past the run's end.
    expect(killed.length).toBeGreaterThanOrEqual(points.length - 3);
    expect(killed.every((result) => result.crash !== undefined)).toBe(true);
    const beforeAnswer = killed.filter((result) => result.answered === undefined);
    // Kills before the 202 that left a run behind (begun, then cut off): the next process resumed each to its end.
    const runsResumedWithoutAnswer = beforeAnswer.filter((result) => result.runsRecovered > 0).length;
    expect(runsResumedWithoutAnswer).toBeGreaterThan(0);
    console.info(
      `server crash points: ${reference.points} points on the POST path (the run begun at point ${beginning}, ` +
        `the 202 at point ${reference.responsePoint}), ` +
        `${points.length} trials, ${killed.length} kills at their point (${beforeAnswer.length} before the client had ` +
        `its 202, ${runsResumedWithoutAnswer} of them after the run had begun), recoveries at start-up: ` +
        `${JSON.stringify(Object.fromEntries(recoveries))}`,
    );
  }, 240_000);

  it(`brings every session back after ${randomTrials} kills at random times after the request`, async () => {
    // Kill times are drawn within 1.5 times how long the client waited for its 202 in the reference run.
    const maxKillDelayMs = Math.max(10, reference.durationMs * 1.5);
    const trials = Array.from({ length: randomTrials }, () => ({ killAfterMs: Math.random() * maxKillDelayMs }));
    const results = await inLanes('random', trials);
    const killed = results.filter((result) => result.killed);
    expect(results).toHaveLength(randomTrials);
    console.info(
      `server random kills: ${results.length} trials, ${killed.length} killed mid-request or mid-run ` +
        `(${killed.filter((result) => result.answered === undefined).length} before the 202), ` +
        `${results.length - killed.length} after the run had finished (kill delays up to ${Math.round(maxKillDelayMs)} ms)`,
    );
  }, 240_000);
});
