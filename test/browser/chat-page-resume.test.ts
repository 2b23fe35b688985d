/**
 * The chat page across a real crash: a server process is killed with
 * SIGKILL while it streams an answer, a new one starts on the same data
 * directory and resumes the run (`resumeInterrupted`), which sends
 * `run:start` again and streams the interrupted step again. The page must
 * show that step's text once — live, after a reload (replay from
 * `Last-Event-ID`), and when it replays the whole run from the start.
 *
 * The page reaches the servers through a proxy, which gives it one origin
 * across the restart and lets the test kill the first server only once
 * every event the page was sent is in the event log. The server hands an
 * event to its streams before the log write that follows in the same turn
 * of the event loop; a kill in between leaves the page ahead of the log,
 * and the resumed run then reuses those seqs (its `run:start` among them),
 * which the stream skips as already seen. That is the server's to fix;
 * this test is about what the page makes of a resume.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoTokens } from '../../src/server/auth-config.js';
import { chromiumPath, skipWithoutChromium } from './chromium.js';

const screenshots = 'test-results';
const serverScript = join(import.meta.dirname, 'resumable-server.ts');
const question = 'Where is my order SO20260901?';
const answerEnd = "on the carrier's site.";

/** The little of the browser's globals these tests touch (the project compiles without the DOM library). */
interface PageGlobals {
  readonly document: { querySelector(selector: string): { readonly textContent: string | null } | null };
  readonly sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
}

interface SavedItem {
  readonly kind: string;
}
interface SavedState {
  sessionId: string;
  current: { runId: string; lastSeq: number; items: SavedItem[]; typing: boolean; done: boolean };
}

interface StreamedEvent {
  readonly type: string;
  readonly seq: number;
  readonly step?: number;
  readonly text?: string;
}

const suite = 'chat page after a crash-resume';

describe.skipIf(skipWithoutChromium(suite))(suite, () => {
  let browser: BrowserContext;
  let profile: string;
  const children: ChildProcess[] = [];
  const proxies: { close(): void }[] = [];
  const directories: string[] = [];

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'arbiter-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-quic',
        '--no-first-run',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 820, height: 900 },
    });
  });

  afterEach(async () => {
    for (const proxy of proxies.splice(0)) proxy.close();
    for (const child of children.splice(0)) await stop(child, 'SIGTERM');
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  /** Starts a server process on `dataDir`; resolves with it and its port once it listens. */
  async function startServerProcess(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
    const child = spawn(process.execPath, ['--import', 'tsx', serverScript, dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const listening = /listening http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (listening !== null) resolve(Number(listening[1]));
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`server exited (${code ?? signal}) before listening: ${output}`)),
      );
    });
    return { child, port };
  }

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  const bubbles = (page: Page, role: 'user' | 'assistant') => page.locator(`[data-role="${role}"]`).allTextContents();
  const roles = (page: Page) =>
    page.locator('#transcript > li').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-role')));

  const readSaved = (page: Page): Promise<SavedState> =>
    page.evaluate(() =>
      JSON.parse((globalThis as unknown as PageGlobals).sessionStorage.getItem('arbiter-chat') ?? '{}'),
    );

  async function waitForAnswer(page: Page): Promise<void> {
    await page.waitForFunction(
      (end) =>
        (globalThis as unknown as PageGlobals).document
          .querySelector('[data-role="assistant"]')
          ?.textContent?.endsWith(end) === true,
      answerEnd,
    );
    await page.waitForSelector('#typing[hidden]', { state: 'attached' });
  }

  it('shows the step streamed again by the resumed run once: live, after a reload and when replayed from the start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-resume-'));
    directories.push(dataDir);
    const first = await startServerProcess(dataDir);
    const proxy = await serverProxy(first.port);
    proxies.push(proxy);
    const url = proxy.url;

    const page = await open(url);
    await page.fill('#message', question);
    await page.press('#message', 'Enter');
    await page.waitForFunction(
      () =>
        ((globalThis as unknown as PageGlobals).document.querySelector('[data-role="assistant"]')?.textContent
          ?.length ?? 0) > 20,
    );
    const runId = (await readSaved(page)).current.runId;
    const sent = proxy.holdEvents();
    while (loggedSeq(dataDir, runId) < sent) await sleep(10);
    await stop(first.child, 'SIGKILL');
    await page.locator('#connection[data-state="lost"]').waitFor();
    // What the page had saved when its server died: the state a reload at that moment starts from.
    const atCrash = await readSaved(page);
    expect(atCrash.current.lastSeq).toBeLessThanOrEqual(sent);
    const partial = (await bubbles(page, 'assistant'))[0] ?? '';
    expect(partial.length).toBeGreaterThan(20);
    expect(partial.endsWith(answerEnd)).toBe(false);

    proxy.forwardTo((await startServerProcess(dataDir)).port);
    await waitForAnswer(page);
    const stored = await storedAssistantTexts(url, atCrash.sessionId);
    expect(stored).toHaveLength(1);
    expect(await bubbles(page, 'user')).toEqual([question]);
    expect(await bubbles(page, 'assistant')).toEqual(stored);
    expect(await roles(page)).toEqual(['user', 'progress', 'progress', 'assistant']);
    await page.screenshot({ path: join(screenshots, 'chat-after-crash-resume.png'), fullPage: true });

    // The premise: the run's stream holds two run:starts, and the answer's step streamed in both.
    const events = await runEvents(url, atCrash.current.runId);
    const starts = events.flatMap((event, index) => (event.type === 'run:start' ? [index] : []));
    expect(starts).toHaveLength(2);
    const resumedAt = starts[1] ?? 0;
    const answerStep = events.findLast((event) => event.type === 'model:delta')?.step;
    const streamedIn = (from: number, to: number) =>
      events
        .slice(from, to)
        .filter((event) => event.type === 'model:delta' && event.step === answerStep)
        .map((event) => event.text)
        .join('');
    const firstAttempt = streamedIn(0, resumedAt);
    expect(firstAttempt.length).toBeGreaterThan(0);
    expect(stored[0]?.startsWith(firstAttempt)).toBe(true);
    expect(stored[0]?.startsWith(partial)).toBe(true);
    expect(streamedIn(resumedAt, events.length)).toBe(stored[0]);

    // A reload right after the crash: the saved state, then a replay from its Last-Event-ID across the restart.
    await page.evaluate(
      (saved) => (globalThis as unknown as PageGlobals).sessionStorage.setItem('arbiter-chat', JSON.stringify(saved)),
      atCrash,
    );
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await waitForAnswer(page);
    expect(await bubbles(page, 'assistant')).toEqual(stored);
    expect(await roles(page)).toEqual(['user', 'progress', 'progress', 'assistant']);

    // A page that saw none of the run: the whole log, both attempts, replayed from seq 1.
    const fromStart: SavedState = {
      ...atCrash,
      current: {
        ...atCrash.current,
        lastSeq: 0,
        items: atCrash.current.items.filter((item) => item.kind === 'user'),
        typing: true,
        done: false,
      },
    };
    await page.evaluate(
      (saved) => (globalThis as unknown as PageGlobals).sessionStorage.setItem('arbiter-chat', JSON.stringify(saved)),
      fromStart,
    );
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await waitForAnswer(page);
    expect(await bubbles(page, 'user')).toEqual([question]);
    expect(await bubbles(page, 'assistant')).toEqual(stored);
    expect(await roles(page)).toEqual(['user', 'progress', 'progress', 'assistant']);
    await page.close();
  }, 60_000);
});

/** Ends a server process and waits until it has exited. */
async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** The seq of the run's last event in the server's event log, read from outside as the next process will. */
function loggedSeq(dataDir: string, runId: string): number {
  const database = new Database(join(dataDir, 'arbiter.db'), { readonly: true, fileMustExist: true });
  try {
    const row = database.prepare('SELECT MAX(seq) AS seq FROM run_events WHERE run_id = ?').get(runId) as
      | { seq: number | null }
      | undefined;
    return row?.seq ?? 0;
  } finally {
    database.close();
  }
}

/**
 * A TCP proxy from one address to the server process of the moment. It
 * notes the highest SSE `id:` it passed to the page; `holdEvents` stops
 * passing bytes from the server on the connections open now and returns
 * that id, so the page can have seen nothing after it.
 */
async function serverProxy(port: number): Promise<{
  url: string;
  holdEvents(): number;
  forwardTo(port: number): void;
  close(): void;
}> {
  let upstreamPort = port;
  let highestId = 0;
  const connections = new Set<{ held: boolean; sockets: Socket[] }>();
  const server = createNetServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    const connection = { held: false, sockets: [client, upstream] };
    connections.add(connection);
    let partialLine = '';
    for (const socket of connection.sockets) {
      socket.on('error', () => {});
      socket.on('close', () => {
        connections.delete(connection);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (connection.held) return;
      client.write(chunk);
      const lines = (partialLine + chunk.toString('latin1')).split('\n');
      partialLine = lines.pop() ?? '';
      for (const line of lines) {
        const id = /^id: (\d+)\r?$/.exec(line);
        if (id !== null) highestId = Math.max(highestId, Number(id[1]));
      }
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    holdEvents: () => {
      for (const connection of connections) connection.held = true;
      return highestId;
    },
    forwardTo: (next) => {
      upstreamPort = next;
    },
    close: () => {
      for (const connection of connections) for (const socket of connection.sockets) socket.destroy();
      server.close();
    },
  };
}

async function storedAssistantTexts(url: string, sessionId: string): Promise<string[]> {
  const response = await fetch(`${url}/v1/sessions/${sessionId}`, {
    headers: { authorization: `Bearer ${demoTokens.customer}` },
  });
  const session = (await response.json()) as { messages: { role: string; content: string }[] };
  return session.messages.filter((message) => message.role === 'assistant').map((message) => message.content);
}

/** Every event of a finished run, as its SSE endpoint replays them from the start. */
async function runEvents(url: string, runId: string): Promise<StreamedEvent[]> {
  const response = await fetch(`${url}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${demoTokens.customer}`, 'last-event-id': '0' },
  });
  const body = await response.text();
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as StreamedEvent);
}
