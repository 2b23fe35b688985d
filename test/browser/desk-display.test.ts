import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../../src/models/script.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { type RunningServer, startServer } from '../../src/server/start-server.js';
import { chromiumPath, skipWithoutChromium } from './chromium.js';

/** Where the screenshots go: `ARBITER_SCREENSHOTS`, else a fresh folder under the system's temp dir (printed). */
const screenshots = process.env['ARBITER_SCREENSHOTS'] ?? mkdtempSync(join(tmpdir(), 'arbiter-desk-display-'));

/** The same refund, asked for again and again: the shop's idempotency key makes every later one a replay. */
const script = {
  name: 'desk-display',
  giveUp: 'Sorry, I could not do that.',
  askUser: 'Could you give me the {field}? It looks like {example}.',
  onRefusal: "I'm sorry, I can't do that: {reason}",
  turns: [
    {
      when: 'teapot',
      steps: [
        {
          call: {
            name: 'apply_refund',
            arguments: {
              order_id: 'SO20260902',
              amount_cents: 20000,
              reason_category: 'damaged',
              reason: 'Teapot cracked',
            },
          },
        },
        { say: 'Your refund {{apply_refund.refund_no}} is {{apply_refund.status}}.' },
      ],
    },
  ],
} as Script;

/** A day and month in digits only (06/12/2026, 12/6/2026, 2026/12/06): what a date must never read like. */
const ambiguousDate = /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b|\b\d{4}\/\d{1,2}\/\d{1,2}\b/;
const englishDate = /\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec) \d{4}\b/;
const chineseDate = /\d{4}年\d{1,2}月\d{1,2}日/;

interface PageDocument {
  readonly document: {
    readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
    querySelector(selector: string): { readonly scrollWidth: number; readonly clientWidth: number } | null;
  };
  readonly innerWidth: number;
}

/** A page expression: at least `count` elements match `selector`. */
function countAtLeast(selector: string, count: number): string {
  return `document.querySelectorAll(${JSON.stringify(selector)}).length >= ${count}`;
}

const suite = "the approver's desk shows money, dates, whole audit rows and replays";

describe.skipIf(skipWithoutChromium(suite))(suite, () => {
  let browser: Browser;
  let running: RunningServer;
  let dataDir: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    process.stderr.write(`desk-display screenshots: ${screenshots}\n`);
    dataDir = mkdtempSync(join(tmpdir(), 'arbiter-desk-display-data-'));
    // No auth file: the demo, whose chat page decides with the demo approver's token.
    running = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      model: () => new ScriptedModel({ script }),
      heartbeatMs: 2000,
      shutdownGraceMs: 200,
      onError: () => {},
    });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
    });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await running?.close();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(path: string, viewport: { width: number; height: number }, lang = 'en'): Promise<Page> {
    const context = await browser.newContext({ viewport, locale: lang, timezoneId: 'Asia/Shanghai' });
    context.setDefaultTimeout(20_000);
    contexts.push(context);
    const page = await context.newPage();
    const [route = '', hash] = path.split('#');
    await page.goto(`${running.url}${route}?lang=${lang}${hash === undefined ? '' : `#${hash}`}`);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  }

  /** Asks for the refund in the chat and approves it on the desk; the card's text before approving. */
  async function refundOnce(chat: Page, desk: Page, round: number): Promise<void> {
    await chat.fill('#message', 'The glass teapot in order SO20260902 arrived cracked. I want a refund.');
    await chat.press('#message', 'Enter');
    const card = desk.locator('[data-approval-id]');
    await card.waitFor();
    if (round > 1) {
      // Before deciding, the approver sees that this very refund already ran, and what it answered.
      const earlier = card.locator('.earlier-call');
      await earlier.waitFor();
      expect(await earlier.getAttribute('data-replays')).toBe('true');
      expect(await earlier.textContent()).toContain('This call already ran on');
      expect(await earlier.textContent()).toMatch(englishDate);
      expect(await earlier.textContent()).toContain('Approving it runs nothing again');
      expect(await earlier.locator('pre.answer').textContent()).toMatch(/"refund_no": "RF/);
      await shoot(desk, `inbox-replay-${round}-en`);
    } else {
      expect(await card.locator('.earlier-call').count()).toBe(0);
    }
    await card.locator('button[data-decision="approve"]').click();
    await desk.waitForSelector('body[data-inbox-count="0"]');
    await chat.waitForFunction(countAtLeast('[data-role="assistant"]', round));
  }

  it('shows the refund as money, dates with the month, the audit row whole at 1280 and 390 px, and the replays as replays', async () => {
    const chat = await open('/', { width: 1000, height: 900 });
    const desk = await open('/desk', { width: 1280, height: 900 });
    await desk.waitForSelector('#live[data-state="live"]');

    // The one rule both pages import, in the browser: money in minor or major units, a day, an instant.
    const formatted = await desk.evaluate(`import('/field-format.js').then((format) => [
      format.formatMoney({ value: 20000, currency: 'CNY', lang: 'en' }),
      format.formatMoney({ value: 20000, currency: 'CNY', lang: 'zh-CN' }),
      format.formatMoney({ value: 1500, currency: 'JPY', lang: 'en' }),
      format.formatMoney({ value: 12.5, currency: 'EUR', unit: 'major', lang: 'en' }),
      format.describeField({ field: 'delivered_on', value: '2026-12-06', display: { kind: 'date' }, lang: 'en' }).shown,
      format.describeField({ field: 'delivered_on', value: '2026-12-06', display: { kind: 'date' }, lang: 'zh-CN' }).shown,
      format.describeField({ field: 'paid_at', value: '2026-06-12T09:17:17Z', display: { kind: 'datetime' }, lang: 'en' }).shown,
      format.describeField({ field: 'fee_cents', value: 250, lang: 'en' }).shown,
    ])`);
    expect(formatted).toEqual([
      '200.00 CNY',
      '¥200.00',
      '1,500 JPY',
      '12.50 EUR',
      '6 Dec 2026',
      '2026年12月6日',
      '12 Jun 2026, 17:17:17 GMT+8',
      '2.50',
    ]);

    // The customer's chat card: money with its currency, the demo's shortcut said on the card.
    await chat.fill('#message', 'The glass teapot in order SO20260902 arrived cracked. I want a refund.');
    await chat.press('#message', 'Enter');
    const chatCard = chat.locator('[data-role="approval"]');
    await chatCard.waitFor();
    expect(await chatCard.locator('dl').textContent()).toContain('200.00 CNY');
    expect(await chatCard.locator('dl').textContent()).not.toContain('20000');
    expect(await chatCard.locator('[data-role="demo-shortcut"]').textContent()).toContain('Demo shortcut');
    const expiry = (await chatCard.locator('.approval-expiry').textContent()) ?? '';
    expect(expiry).toMatch(/^If nobody approves it by .+, it will not be done\.$/);
    expect(expiry).toMatch(englishDate);
    expect(expiry).not.toMatch(ambiguousDate);
    await shoot(chat, 'chat-card-demo-en');

    // The same card on the desk: "Amount 200.00 CNY", asked at a date with the month's name.
    const card = desk.locator('[data-approval-id]');
    await card.waitFor();
    expect(await card.locator('dd[data-field="amount_cents"]').textContent()).toBe('200.00 CNY');
    expect(await card.locator('.arguments').textContent()).toContain('Amount');
    expect(await card.locator('.arguments').textContent()).not.toContain('Amount cents');
    const asked = (await card.locator('.asked').textContent()) ?? '';
    expect(asked).toMatch(englishDate);
    expect(asked).not.toMatch(ambiguousDate);
    await shoot(desk, 'inbox-money-en');
    await desk.click('#language');
    await desk.waitForSelector('html[lang="zh-CN"]');
    expect(await card.locator('dd[data-field="amount_cents"]').textContent()).toBe('¥200.00');
    expect(await card.locator('.arguments').textContent()).toContain('金额¥200.00');
    expect(await card.locator('.asked').textContent()).toMatch(chineseDate);
    expect(await card.locator('.asked').textContent()).not.toMatch(ambiguousDate);
    await shoot(desk, 'inbox-money-zh-CN');
    await desk.click('#language');
    await desk.waitForSelector('html[lang="en"]');
    await chat.click('#language');
    await chat.waitForSelector('html[lang="zh-CN"]');
    expect(await chatCard.locator('dl').textContent()).toContain('¥200.00');
    expect(await chatCard.locator('.approval-expiry').textContent()).toMatch(chineseDate);
    expect(await chatCard.locator('[data-role="demo-shortcut"]').textContent()).toContain('演示快捷方式');
    await shoot(chat, 'chat-card-demo-zh-CN');
    await chat.click('#language');
    await chat.waitForSelector('html[lang="en"]');

    // The first refund is approved on the desk and runs; the second and third are the same refund.
    await card.locator('button[data-decision="approve"]').click();
    await desk.waitForSelector('body[data-inbox-count="0"]');
    await chat.waitForFunction(countAtLeast('[data-role="assistant"]', 1));
    await refundOnce(chat, desk, 2);
    await refundOnce(chat, desk, 3);

    // The audit, filtered to the refunds: three rows, the last two replays of the first.
    await desk.click('#nav-audit');
    await desk.waitForSelector('#chain[data-status="verified"]');
    await desk.fill('#filter-tool', 'apply_refund');
    await desk.press('#filter-tool', 'Enter');
    await desk.waitForFunction(countAtLeast('#audit-rows tbody tr', 3));
    const rows = desk.locator('#audit-rows tbody tr');
    const firstId = await rows.nth(2).getAttribute('data-audit-id');
    for (const index of [0, 1]) {
      expect(await rows.nth(index).locator('td[data-column="outcome"]').textContent()).toBe(
        `replayed (ok): already ran, row ${firstId}`,
      );
    }
    expect(await rows.nth(2).locator('td[data-column="outcome"]').textContent()).toBe('ok');
    expect(await rows.nth(0).locator('td[data-column="arguments"]').textContent()).toContain('Amount: 200.00 CNY');
    expect(await rows.nth(0).locator('td[data-column="time"]').textContent()).toMatch(englishDate);

    /** Every cell of the first row lies inside the window and nothing scrolls sideways. */
    async function wholeRowVisible(page: Page): Promise<void> {
      const width = await page.evaluate(() => (globalThis as unknown as PageDocument).innerWidth);
      const cells = page.locator('#audit-rows tbody tr').first().locator('td');
      expect(await cells.count()).toBe(9);
      for (const column of ['approver', 'outcome', 'row', 'time', 'arguments']) {
        const box = await cells.and(page.locator(`td[data-column="${column}"]`)).boundingBox();
        expect(box, column).not.toBeNull();
        expect(box?.x ?? -1, column).toBeGreaterThanOrEqual(0);
        expect((box?.x ?? 0) + (box?.width ?? 0), column).toBeLessThanOrEqual(width);
      }
      const overflow = await page.evaluate(() => {
        const { document } = globalThis as unknown as PageDocument;
        const wrap = document.querySelector('.table-wrap');
        return {
          page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          table: wrap === null ? 0 : wrap.scrollWidth - wrap.clientWidth,
        };
      });
      expect(overflow).toEqual({ page: 0, table: 0 });
    }
    await wholeRowVisible(desk);
    await shoot(desk, 'audit-1280-en');
    await desk.click('#language');
    await desk.waitForSelector('html[lang="zh-CN"]');
    await wholeRowVisible(desk);
    expect(await rows.nth(0).locator('td[data-column="time"]').textContent()).toMatch(chineseDate);
    expect(await rows.nth(0).locator('td[data-column="arguments"]').textContent()).toContain('¥200.00');
    await shoot(desk, 'audit-1280-zh-CN');

    const phone = await open('/desk#audit', { width: 390, height: 844 });
    await phone.waitForSelector('#chain[data-status="verified"]');
    await wholeRowVisible(phone);
    await shoot(phone, 'audit-390-en');
    const phoneZh = await open('/desk#audit', { width: 390, height: 844 }, 'zh-CN');
    await phoneZh.waitForSelector('#chain[data-status="verified"]');
    await wholeRowVisible(phoneZh);
    await shoot(phoneZh, 'audit-390-zh-CN');

    // The third refund's timeline: replayed, which call ran first, and the answer it gave back.
    const audit = (await (
      await fetch(`${running.url}/v1/desk/audit?tool=apply_refund`, {
        headers: { authorization: `Bearer ${await approverToken()}` },
      })
    ).json()) as { rows: { runId: string; outcome: string }[] };
    const replay = audit.rows.find((row) => row.outcome === 'replayed:ok');
    expect(replay).toBeDefined();
    const timeline = await open(`/desk#run/${replay?.runId}`, { width: 1280, height: 900 });
    await timeline.waitForSelector('body[data-view="run"] #run-status[data-status="completed"]');
    const step = timeline.locator('li[data-kind="tool"][data-tool="apply_refund"]');
    expect(await step.locator('[data-replayed="true"]').count()).toBe(1);
    expect(await step.locator('.step-replay').textContent()).toContain('This call had already run');
    expect(await step.locator('pre.answer').textContent()).toMatch(/"refund_no": "RF/);
    expect(await step.locator('.arguments').textContent()).toContain('200.00 CNY');
    expect(await timeline.locator('li[data-kind="run"] time').first().textContent()).toMatch(englishDate);
    await shoot(timeline, 'timeline-replay-en');
    await timeline.click('#language');
    await timeline.waitForSelector('html[lang="zh-CN"]');
    expect(await step.locator('.step-replay').textContent()).toContain('该调用之前已执行过');
    await shoot(timeline, 'timeline-replay-zh-CN');
  }, 240_000);

  async function approverToken(): Promise<string> {
    const demo = (await (await fetch(`${running.url}/demo.json`)).json()) as { approverToken: string };
    return demo.approverToken;
  }
});
