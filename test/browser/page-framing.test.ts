/**
 * Clickjacking, in a real browser: a page of another origin frames the chat
 * page (its approve buttons in demo mode) and the desk; Chromium refuses to
 * show either (X-Frame-Options DENY, CSP frame-ancestors 'none').
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/start-server.js';
import { chromiumPath, skipWithoutChromium } from './chromium.js';

const suite = 'the pages refuse to be framed by another site';

describe.skipIf(skipWithoutChromium(suite))(suite, () => {
  let browser: BrowserContext;
  let profile: string;
  let dataDir: string;
  let running: RunningServer;
  let attacker: Server;
  let attackerUrl: string;

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'arbiter-chromium-'));
    dataDir = mkdtempSync(join(tmpdir(), 'arbiter-framing-'));
    // Demo mode: the chat page's approval card has approve buttons.
    running = await startServer({ port: 0, host: '127.0.0.1', dataDir, shutdownGraceMs: 200 });
    attacker = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><title>win a prize</title>` +
          `<iframe id="chat" src="${running.url}/"></iframe><iframe id="desk" src="${running.url}/desk"></iframe>`,
      );
    });
    // Another origin: localhost, not 127.0.0.1, and another port.
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => attacker?.close(() => resolve()));
    await running?.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows neither the chat page nor the desk inside another site’s frame', async () => {
    const page = await browser.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options/.test(message.text())) refusals.push(message.text());
    });
    await page.goto(attackerUrl);
    await expect.poll(() => refusals.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const frames = page.frames().filter((frame) => frame !== page.mainFrame());
    expect(frames).toHaveLength(2);
    for (const frame of frames) {
      // A refused frame holds Chromium's error page, not arbiter's: no composer, no approve button.
      expect(frame.url()).not.toContain(running.url);
      expect(await frame.locator('#composer, #message, button').count()).toBe(0);
    }
    // Chromium names the framed origin, once per refused frame.
    expect(refusals.filter((text) => text.includes(`'${running.url}/'`))).toHaveLength(2);
    await page.close();
  }, 120_000);
});
