import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../../src/models/script.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { AuthConfig } from '../../src/server/auth-config.js';
import { type RunningServer, startServer } from '../../src/server/start-server.js';
import { chromiumPath, skipWithoutChromium } from './chromium.js';

const screenshots = join('test-results', 'desk');

/** An argument a hostile model (or text it read) could put in a call: must show as text, never run. */
const hostileReason = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>Teapot cracked';

const tokens = {
  /** Staff member Wang, an approver who also shops here as customer C1001: four eyes keeps him off his own refund. */
  wang: 'desk-wang-token-0001-0123456789abcdef',
  /** Staff member Li, the second approver of the shop. */
  li: 'desk-li-token-0002-0123456789abcdefab',
  /** Customer C1002. */
  bob: 'desk-bob-token-0003-0123456789abcdef',
  /** An approver of another tenant. */
  other: 'desk-other-token-0004-0123456789abcd',
} as const;

const auth: AuthConfig = {
  tokens: [
    { token: tokens.wang, tenantId: 'shop', userId: 'C1001', roles: ['customer', 'approver'] },
    { token: tokens.li, tenantId: 'shop', userId: 'S9002', roles: ['approver'] },
    { token: tokens.bob, tenantId: 'shop', userId: 'C1002', roles: ['customer'] },
    { token: tokens.other, tenantId: 'other-shop', userId: 'S9001', roles: ['approver'] },
  ],
};

/** A refund whose order number the model first gets wrong (corrected from the user's words), and one that waits. */
const script: Script = {
  name: 'desk',
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
            arguments: { order_id: 20260902, amount_cents: 20000, reason_category: 'damaged', reason: hostileReason },
          },
        },
        { say: 'Done: your refund {{apply_refund.refund_no}} was approved and is now {{apply_refund.status}}.' },
      ],
    },
    {
      when: 'headphones',
      steps: [
        {
          call: {
            name: 'apply_refund',
            arguments: {
              order_id: 'SO20260906',
              amount_cents: 20000,
              reason_category: 'damaged',
              reason: 'Headphones broken.',
            },
          },
        },
        { say: 'Your refund {{apply_refund.refund_no}} is {{apply_refund.status}}.' },
      ],
    },
  ],
} as Script;

/** Records when each approval card first appears, by the page's clock. */
const recordCards = `
  window.cardSeenAt = {};
  new MutationObserver(() => {
    for (const card of document.querySelectorAll('[data-approval-id]')) {
      const id = card.dataset.approvalId;
      if (window.cardSeenAt[id] === undefined) window.cardSeenAt[id] = Date.now();
    }
  }).observe(document, { subtree: true, childList: true });
`;

interface PageGlobals {
  readonly cardSeenAt: Record<string, number>;
  readonly pwned: unknown;
  readonly sessionStorage: { getItem(key: string): string | null };
  readonly document: { querySelectorAll(selector: string): ArrayLike<unknown> };
}

const suite = "the approver's desk in a real browser";

describe.skipIf(skipWithoutChromium(suite))(suite, () => {
  let browser: Browser;
  let running: RunningServer;
  let dataDir: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'arbiter-desk-'));
    running = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      auth,
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

  /** A person's own browser: their token where the chat page and the desk look for it. */
  async function person(token: string, viewport = { width: 1000, height: 900 }): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(20_000);
    await context.addInitScript({
      content: `localStorage.setItem('arbiter-token', ${JSON.stringify(token)});
        localStorage.setItem('arbiter-desk-token', ${JSON.stringify(token)});`,
    });
    await context.addInitScript({ content: recordCards });
    contexts.push(context);
    return context;
  }

  async function openDesk(context: BrowserContext, hash = ''): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${running.url}/desk${hash}`);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  async function openChat(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    await page.goto(running.url);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  async function ask(page: Page, text: string): Promise<void> {
    await page.fill('#message', text);
    await page.press('#message', 'Enter');
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  }

  async function inZh(page: Page, name: string): Promise<void> {
    await page.click('#language');
    await page.waitForSelector('html[lang="zh-CN"]');
    await shoot(page, `${name}-zh-CN`);
    await page.click('#language');
    await page.waitForSelector('html[lang="en"]');
  }

  function sql(statements: (database: Database.Database) => void): void {
    const database = new Database(join(dataDir, 'arbiter.db'));
    try {
      statements(database);
    } finally {
      database.close();
    }
  }

  it('brings a refund to the right inbox within a second, keeps four eyes, lets the other approver decide, and the chat goes on', async () => {
    const wang = await person(tokens.wang);
    const li = await person(tokens.li, { width: 390, height: 844 });
    const other = await person(tokens.other);
    const wangDesk = await openDesk(wang);
    const liDesk = await openDesk(li);
    const otherDesk = await openDesk(other);
    for (const page of [wangDesk, liDesk, otherDesk]) await page.waitForSelector('#live[data-state="live"]');

    const chat = await openChat(wang);
    await ask(chat, 'The glass teapot in order SO20260902 arrived cracked. I want a refund.');
    await chat.locator('[data-role="approval"]').waitFor();

    const card = liDesk.locator('[data-approval-id]');
    await card.waitFor();
    const approvalId = (await card.getAttribute('data-approval-id')) as string;
    const listed = await (
      await fetch(`${running.url}/v1/desk/inbox`, { headers: { authorization: `Bearer ${tokens.li}` } })
    ).json();
    const createdAt = Date.parse((listed as { approvals: { createdAt: string }[] }).approvals[0]?.createdAt ?? '');
    const seenAt = await liDesk.evaluate(
      (id) => (globalThis as unknown as PageGlobals).cardSeenAt[id] ?? 0,
      approvalId,
    );
    expect(seenAt - createdAt).toBeLessThan(1000);

    const text = (await card.textContent()) ?? '';
    expect(text).toContain('Apply refund');
    expect(text).toContain('SO20260902');
    expect(text).toContain('200.00 CNY');
    expect(text).toContain('C1001');
    expect(await card.locator('.arguments').textContent()).not.toContain('C1001');
    // The hostile argument is shown as the text it is, and ran nowhere.
    expect(await card.locator('.arguments').textContent()).toContain('<img src=x onerror="window.pwned=1">');
    for (const page of [wangDesk, liDesk, chat])
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).pwned)).toBeUndefined();

    // The other tenant's approver: nothing, now or a while later.
    await otherDesk.waitForTimeout(1200);
    expect(await otherDesk.locator('[data-approval-id]').count()).toBe(0);
    expect(await otherDesk.getAttribute('body', 'data-inbox-count')).toBe('0');

    // Wang asked for it himself: the desk says why he cannot decide it, and the server refuses him anyway.
    const own = wangDesk.locator(`[data-approval-id="${approvalId}"]`);
    await own.waitFor();
    expect(await own.getAttribute('data-blocked')).toBe('four_eyes');
    expect(await own.locator('.four-eyes').textContent()).toContain('four-eyes rule');
    expect(await own.locator('button[data-decision]').count()).toBe(0);
    const attempt = await wangDesk.evaluate(
      async ({ id, token }) => {
        const response = await fetch('/v1/desk/decisions', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ approvalIds: [id], decision: 'approve' }),
        });
        return response.json();
      },
      { id: approvalId, token: tokens.wang },
    );
    expect(attempt).toEqual({ results: [expect.objectContaining({ ok: false, status: 403, code: 'self_approval' })] });
    await shoot(wangDesk, 'inbox-four-eyes-en');
    await inZh(wangDesk, 'inbox-four-eyes');
    await shoot(liDesk, 'inbox-phone-en');
    await inZh(liDesk, 'inbox-phone');

    // Li decides with the keyboard: a reason, then Approve.
    await liDesk.focus(`#reason-${approvalId}`);
    await liDesk.keyboard.type('Photo of the crack checked <b>ok</b>');
    await liDesk.keyboard.press('Tab');
    await liDesk.keyboard.press('Enter');
    await liDesk.waitForSelector('body[data-inbox-count="0"]');
    await wangDesk.waitForSelector('body[data-inbox-count="0"]');
    expect(await wangDesk.locator('[data-approval-id]').count()).toBe(0);

    await chat.waitForFunction(() =>
      Array.from(
        (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-role="assistant"]') as ArrayLike<{
          textContent: string;
        }>,
      ).some((bubble) => bubble.textContent.startsWith('Done: your refund RF')),
    );

    // Customer Bob's refund waits; its grant runs out before anyone decides.
    const bob = await person(tokens.bob);
    const bobChat = await openChat(bob);
    await ask(bobChat, 'My headphones from SO20260906 are broken, refund please.');
    const waiting = liDesk.locator('[data-approval-id]');
    await waiting.waitFor();
    const expiringId = (await waiting.getAttribute('data-approval-id')) as string;
    await shoot(liDesk, 'inbox-waiting-phone-en');
    sql((database) =>
      database.prepare('UPDATE approvals SET expires_at = ? WHERE approval_id = ?').run(Date.now() - 1000, expiringId),
    );
    await liDesk.waitForSelector(`[data-approval-id="${expiringId}"][data-blocked="expired"]`);
    expect(await waiting.locator('.countdown').textContent()).toContain('Expired');
    expect(await waiting.locator('button[data-decision]').count()).toBe(0);
    const wide = await openDesk(await person(tokens.li));
    await wide.waitForSelector(`[data-approval-id="${expiringId}"][data-blocked="expired"]`);
    await shoot(wide, 'inbox-expired-en');
    await inZh(wide, 'inbox-expired');
    // Refused by the server too (the grant is then marked as run out, and leaves the inbox).
    const late = await liDesk.evaluate(
      async ({ id, token }) => {
        const response = await fetch('/v1/desk/decisions', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ approvalIds: [id], decision: 'approve' }),
        });
        return response.json();
      },
      { id: expiringId, token: tokens.li },
    );
    expect(late).toEqual({ results: [expect.objectContaining({ ok: false, status: 409, code: 'approval_expired' })] });

    // The timeline of Wang's run, from his session: the corrected call, the gate's decision, Li's approval.
    const sessionId = await chat.evaluate(
      () =>
        JSON.parse((globalThis as unknown as PageGlobals).sessionStorage.getItem('arbiter-chat') ?? '{}')
          .sessionId as string,
    );
    await wide.goto(`${running.url}/desk#session/${sessionId}`);
    await wide.waitForSelector('body[data-view="session"]');
    await wide.locator('a[data-link="timeline"]').first().click();
    await wide.waitForSelector('body[data-view="run"] #run-status[data-status="completed"]');
    const toolSteps = wide.locator('li[data-kind="tool"][data-tool="apply_refund"]');
    expect(await toolSteps.count()).toBe(2);
    expect(await toolSteps.nth(0).locator('[data-validation]').getAttribute('data-validation')).toBe('failed');
    // The first call's order number was a number: what the model was told, then the call it sent instead.
    expect(await toolSteps.nth(0).locator('.arguments').textContent()).toContain('20260902');
    expect(await toolSteps.nth(0).locator('.step-feedback').textContent()).toContain('order_id');
    expect(await toolSteps.nth(1).locator('.arguments').textContent()).toContain('SO20260902');
    const approved = toolSteps.nth(1);
    expect(await approved.locator('[data-validation]').getAttribute('data-validation')).toBe('passed');
    expect(await approved.locator('[data-gate]').getAttribute('data-gate')).toBe('approved');
    expect(await approved.locator('[data-approval]').textContent()).toContain('approved by S9002');
    expect(await approved.textContent()).toContain('Photo of the crack checked <b>ok</b>');
    expect(await approved.locator('[data-result]').getAttribute('data-result')).toBe('ok');
    expect(await wide.locator('li[data-kind="model"]').count()).toBeGreaterThan(1);
    expect(await wide.locator('li[data-kind="model"]').first().textContent()).toMatch(/\d+ in · \d+ out tokens/);
    await shoot(wide, 'timeline-en');
    await inZh(wide, 'timeline');

    // The audit: the rows, the chain verified; then a row changed through SQL is where it breaks.
    await wide.click('#nav-audit');
    await wide.waitForSelector('#chain[data-status="verified"]');
    expect(await wide.locator('#audit-rows tbody tr').count()).toBeGreaterThan(0);
    await wide.fill('#filter-tool', 'apply_refund');
    await wide.press('#filter-tool', 'Enter');
    await wide.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.querySelectorAll('#audit-rows tbody tr').length === 1,
    );
    await shoot(wide, 'audit-verified-en');
    await inZh(wide, 'audit-verified');
    const auditId = Number(await wide.locator('#audit-rows tbody tr').first().getAttribute('data-audit-id'));
    sql((database) => {
      database.exec('DROP TRIGGER audit_log_refuses_update');
      database.prepare("UPDATE audit_log SET approver = 'C1001' WHERE audit_id = ?").run(auditId);
    });
    await wide.click('#audit-filters button[type="submit"]');
    await wide.waitForSelector(`#chain[data-status="broken"][data-break-at="${auditId}"]`);
    expect(await wide.locator('#chain').textContent()).toContain(`Chain broken at row ${auditId}`);
    expect(await wide.locator(`tr[data-audit-id="${auditId}"]`).getAttribute('data-broken')).toBe('true');
    await shoot(wide, 'audit-broken-en');
    await inZh(wide, 'audit-broken');
    expect(await wide.locator('#chain').textContent()).toContain('Chain broken');

    // The other tenant's auditor view of the same log: his chain holds, none of these rows.
    const otherAudit = await openDesk(other, '#audit');
    await otherAudit.waitForSelector('#chain[data-status="verified"]');
    expect(await otherAudit.locator('#audit-rows tbody tr').count()).toBe(0);
    for (const page of [wangDesk, liDesk, wide, chat])
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).pwned)).toBeUndefined();
  }, 240_000);
});
