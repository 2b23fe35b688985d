import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoTokens } from '../../src/server/auth-config.js';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/server/start-server.js';
import { chromiumPath, skipWithoutChromium } from './chromium.js';

const screenshots = 'test-results';

/** Records, per assistant bubble, every length its text had: more than a few means it streamed. */
const recordStreaming = `
  window.streamed = [];
  const seen = new WeakMap();
  new MutationObserver(() => {
    for (const bubble of document.querySelectorAll('[data-role="assistant"]')) {
      let lengths = seen.get(bubble);
      if (lengths === undefined) {
        lengths = [];
        seen.set(bubble, lengths);
        window.streamed.push(lengths);
      }
      const length = bubble.textContent.length;
      if (lengths.at(-1) !== length) lengths.push(length);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

/** The little of the browser's globals these tests touch (the project compiles without the DOM library). */
interface PageNode {
  readonly textContent: string | null;
  readonly dataset: Readonly<Record<string, string | undefined>>;
}
interface PageGlobals {
  readonly document: {
    querySelector(selector: string): PageNode | null;
    querySelectorAll(selector: string): ArrayLike<PageNode> & Iterable<PageNode>;
  };
  readonly sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  readonly streamed: number[][];
}

const suite = 'chat page in a real browser';

describe.skipIf(skipWithoutChromium(suite))(suite, () => {
  let browser: BrowserContext;
  let profile: string;
  const servers: { running: RunningServer; dataDir: string }[] = [];

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
    for (const { running, dataDir } of servers.splice(0)) {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  afterAll(async () => {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  async function serve(options: StartServerOptions = {}): Promise<RunningServer> {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-browser-'));
    const running = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      heartbeatMs: 2000,
      shutdownGraceMs: 200,
      ...options,
    });
    servers.push({ running, dataDir });
    return running;
  }

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    await page.addInitScript({ content: recordStreaming });
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  async function ask(page: Page, text: string): Promise<void> {
    await page.fill('#message', text);
    await page.press('#message', 'Enter');
  }

  const bubbles = (page: Page, role: 'user' | 'assistant') => page.locator(`[data-role="${role}"]`).allTextContents();

  async function storedAssistantTexts(running: RunningServer, page: Page): Promise<string[]> {
    const sessionId = await page.evaluate(
      () => JSON.parse((globalThis as unknown as PageGlobals).sessionStorage.getItem('arbiter-chat') ?? '{}').sessionId,
    );
    const response = await fetch(`${running.url}/v1/sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${demoTokens.customer}` },
    });
    const session = (await response.json()) as { messages: { role: string; content: string }[] };
    return session.messages.filter((message) => message.role === 'assistant').map((message) => message.content);
  }

  it('answers an order question with progress first, then a large refund through the approval card', async () => {
    const running = await serve({ streamingDelay: { firstTokenMs: 250, deltaMs: 15 } });
    const page = await open(running.url);

    await ask(page, 'Where is my order SO20260901?');
    await page.waitForSelector('#typing:not([hidden])');
    const progress = page.locator('[data-role="progress"]').first();
    await progress.waitFor();
    expect(await progress.textContent()).toBe('Looking up your order…');
    expect(await page.locator('[data-role="assistant"]').count()).toBe(0);
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document
        .querySelector('[data-role="assistant"]')
        ?.textContent?.endsWith("on the carrier's site."),
    );
    await page.waitForSelector('#typing[hidden]', { state: 'attached' });
    const order = await page.evaluate(() =>
      [...(globalThis as unknown as PageGlobals).document.querySelectorAll('#transcript > li')].map(
        (node) => node.dataset.role,
      ),
    );
    expect(order).toEqual(['user', 'progress', 'progress', 'assistant']);
    expect(await page.locator('[data-role="progress"]').allTextContents()).toEqual([
      'Looking up your order…',
      'Tracking your parcel…',
    ]);
    const streamed = await page.evaluate(() => (globalThis as unknown as PageGlobals).streamed);
    expect(streamed[0]?.length ?? 0).toBeGreaterThan(5);

    await ask(page, 'The glass teapot in my order arrived cracked. I want a refund.');
    const card = page.locator('[data-role="approval"]');
    await card.waitFor();
    const cardText = (await card.textContent()) ?? '';
    expect(cardText).toContain('Apply refund');
    expect(cardText).toContain('SO20260902');
    expect(cardText).toContain('Amount');
    expect(cardText).toContain('200.00');
    expect(cardText).not.toContain('C1001');
    await page.waitForSelector('#typing[hidden]', { state: 'attached' });
    await page.screenshot({ path: join(screenshots, 'chat-approval-card.png'), fullPage: true });
    await card.locator('button[data-decision="approve"]').click();
    await page.waitForFunction(() => {
      const answers = (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-role="assistant"]');
      return answers.length === 2 && answers[1]?.textContent?.endsWith('within 1-3 business days.');
    });
    await page.waitForSelector('#typing[hidden]', { state: 'attached' });
    expect(await card.getAttribute('data-status')).toBe('approved');
    const answers = await bubbles(page, 'assistant');
    expect(answers[1]).toMatch(/^Done: your refund RF\d{10} of 200\.00 yuan .* was approved and is now processing\./);
    expect(answers).toEqual(await storedAssistantTexts(running, page));
    await page.screenshot({ path: join(screenshots, 'chat-refund-approved.png'), fullPage: true });
    await page.close();
  });

  it('picks the stream up where it left off after a reload mid-answer, with nothing doubled or missing', async () => {
    const running = await serve({ streamingDelay: { firstTokenMs: 200, deltaMs: 70 } });
    const page = await open(running.url);

    await ask(page, 'Where is my order SO20260901?');
    await page.waitForFunction(
      () =>
        ((globalThis as unknown as PageGlobals).document.querySelector('[data-role="assistant"]')?.textContent
          ?.length ?? 0) > 20,
    );
    const before = (await bubbles(page, 'assistant'))[0] ?? '';
    expect(before.endsWith("on the carrier's site.")).toBe(false);
    const seenBefore = await page.evaluate(
      () =>
        JSON.parse((globalThis as unknown as PageGlobals).sessionStorage.getItem('arbiter-chat') ?? '{}').current
          .lastSeq,
    );

    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    const resumedWith = (await bubbles(page, 'assistant'))[0] ?? '';
    expect(resumedWith.startsWith(before)).toBe(true);
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document
        .querySelector('[data-role="assistant"]')
        ?.textContent?.endsWith("on the carrier's site."),
    );
    await page.waitForSelector('#typing[hidden]', { state: 'attached' });

    expect(await bubbles(page, 'user')).toEqual(['Where is my order SO20260901?']);
    expect(await bubbles(page, 'assistant')).toEqual(await storedAssistantTexts(running, page));
    expect(await page.locator('[data-role="progress"]').allTextContents()).toEqual([
      'Looking up your order…',
      'Tracking your parcel…',
    ]);
    const seenAfter = await page.evaluate(
      () =>
        JSON.parse((globalThis as unknown as PageGlobals).sessionStorage.getItem('arbiter-chat') ?? '{}').current
          .lastSeq,
    );
    expect(seenAfter).toBeGreaterThan(seenBefore);
    await page.screenshot({ path: join(screenshots, 'chat-after-reload.png'), fullPage: true });
    await page.close();
  });

  it('speaks Chinese with ?lang=zh-CN', async () => {
    const running = await serve({ streamingDelay: { firstTokenMs: 150, deltaMs: 15 } });
    const page = await open(`${running.url}/?lang=zh-CN`);
    expect(await page.locator('#send').textContent()).toBe('发送');

    await ask(page, '我的订单 SO20260901 到哪了？');
    await page.locator('[data-role="progress"]', { hasText: '正在查询订单…' }).waitFor();
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document
        .querySelector('[data-role="assistant"]')
        ?.textContent?.endsWith('可以在快递公司网站查看进度。'),
    );
    await page.waitForSelector('#typing[hidden]', { state: 'attached' });
    await page.screenshot({ path: join(screenshots, 'chat-zh-CN.png'), fullPage: true });
    await page.close();
  });

  it('clears the typing dots when heartbeats stop, as when the server vanishes', async () => {
    const running = await serve({ streamingDelay: { firstTokenMs: 10_000, deltaMs: 15 }, heartbeatMs: 300 });
    const proxy = await freezableProxy(running.port);
    try {
      const page = await open(proxy.url);
      await ask(page, 'Where is my order SO20260901?');
      await page.waitForSelector('#typing:not([hidden])');
      await page.locator('#connection[data-state="live"]').waitFor();
      proxy.freeze();
      await page.locator('#connection[data-state="lost"]').waitFor({ timeout: 5000 });
      expect(await page.locator('#typing').isHidden()).toBe(true);
      await page.screenshot({ path: join(screenshots, 'chat-connection-lost.png'), fullPage: true });
      await page.close();
    } finally {
      proxy.close();
    }
  });
});

/** A TCP proxy to the server that can stop passing bytes while keeping every connection open. */
async function freezableProxy(port: number): Promise<{ url: string; freeze(): void; close(): void }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    freeze: () => {
      frozen = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
