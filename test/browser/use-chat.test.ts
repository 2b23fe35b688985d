/**
 * `useChat` from `@ai-sdk/react`, unmodified, against a real `arbiter serve`
 * (its own process: `--auth` with the test tokens, `--script` with the test
 * chat at the default pace) in Debian's Chromium: the README's `Chat`
 * component (its "Use it from a React app" snippet, built with vite as a
 * reader would) on a page served at the server's origin. A customer asks a question, has a malformed call
 * corrected, asks for a refund that an approver approves from his own page,
 * and reloads in the middle of an answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedSessionId } from '../../src/server/named-session.js';
import { uiChatScript } from '../../src/server/protocols/ai-sdk-ui/test-support/ui-chat-script.js';
import { testAuth, testTokens } from '../../src/server/test-support/test-server.js';
import { readmeSnippets } from '../package/readme-snippets.js';
import { chromiumPath, skipWithoutChromium } from './chromium.js';

const screenshots = 'test-results';
const pageSource = join(import.meta.dirname, 'use-chat');
/** Built inside the checkout, so the page's imports resolve from its node_modules. */
const pageRoot = join(import.meta.dirname, '..', '..', 'test-results', 'use-chat-page');
/** AI SDK 6, the version `@ai-sdk/react` 3 is built on (the checkout's own `ai` is 5, for the bench). */
const aiSix = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@ai-sdk',
  'react',
  'node_modules',
  'ai',
  'dist',
  'index.mjs',
);
const contentTypes: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** The little of the browser's globals these tests touch (the project compiles without the DOM library). */
interface PageGlobals {
  readonly document: { querySelectorAll(selector: string): ArrayLike<{ readonly textContent: string | null }> };
}

const suite = 'useChat against arbiter in a real browser';

describe.skipIf(skipWithoutChromium(suite))(suite, { timeout: 60_000 }, () => {
  let browser: BrowserContext;
  let profile: string;
  let server: { url: string; process: ChildProcess; dataDir: string };
  let built: string;

  beforeAll(async () => {
    const snippet = readmeSnippets({ file: 'docs/use-chat.md' }).find(
      (each) => each.section === 'Use it from a React app (`useChat`)' && each.language === 'tsx',
    );
    if (snippet === undefined) throw new Error('docs/use-chat.md has no useChat snippet');
    rmSync(pageRoot, { recursive: true, force: true });
    mkdirSync(pageRoot, { recursive: true });
    for (const file of ['index.html', 'main.jsx']) copyFileSync(join(pageSource, file), join(pageRoot, file));
    writeFileSync(join(pageRoot, 'chat.tsx'), snippet.code);
    built = join(pageRoot, 'dist');
    await build({
      root: pageRoot,
      base: '/use-chat/',
      configFile: false,
      logLevel: 'error',
      resolve: { alias: [{ find: /^ai$/, replacement: aiSix }] },
      oxc: { jsx: { runtime: 'automatic' } },
      build: { outDir: built, emptyOutDir: true, minify: false },
    });

    server = await serveArbiter();
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
    // The built page at the server's origin: /v1/chat is then same-origin, as behind one reverse proxy.
    await browser.route(`${server.url}/use-chat/**`, async (route) => {
      const path = new URL(route.request().url()).pathname.slice('/use-chat/'.length) || 'index.html';
      const file = join(built, path);
      if (!file.startsWith(built) || !existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({
        status: 200,
        body: readFileSync(file),
        contentType: contentTypes[extname(file)] ?? 'application/octet-stream',
      });
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined) {
      const exited = new Promise((resolve) => server.process.once('exit', resolve));
      server.process.kill('SIGTERM');
      await exited;
      rmSync(server.dataDir, { recursive: true, force: true });
    }
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  async function open(chatId: string, token: string): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await page.goto(`${server.url}/use-chat/index.html?chat=${chatId}&token=${token}`);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  async function ask(page: Page, text: string): Promise<void> {
    await page.waitForSelector('input:not([disabled])');
    await page.fill('input', text);
    await page.press('input', 'Enter');
  }

  const finished = (page: Page, stopReason = 'completed') =>
    page.waitForSelector(`section[data-role="assistant"][data-stop="${stopReason}"]`, { timeout: 20_000 });
  const toolStates = (page: Page) =>
    page
      .locator('section[data-role="assistant"] [data-part="tool"]')
      .evaluateAll((nodes) => nodes.map((node) => (node as unknown as { dataset: { state: string } }).dataset.state));
  const answerText = (page: Page) =>
    page
      .locator('section[data-role="assistant"] > p:not([data-part])')
      .allTextContents()
      .then((texts) => texts.join(''));

  async function storedAnswer(chatId: string): Promise<string | undefined> {
    const sessionId = namedSessionId('chat', { tenantId: 'shop', userId: 'C1001', roles: [] }, chatId);
    const response = await fetch(`${server.url}/v1/sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${testTokens.alice}` },
    });
    const body = (await response.json()) as { messages: unknown };
    return (body.messages as { role: string; content: string }[]).findLast((message) => message.role === 'assistant')
      ?.content;
  }

  it('answers a question with the tool call, its progress and the streamed text', async () => {
    const page = await open('browser-question', testTokens.alice);
    await ask(page, 'Where is my order SO20260901?');
    await finished(page);
    expect(await toolStates(page)).toEqual(['output-available']);
    expect(await page.locator('[data-part="data-progress"]').allTextContents()).toEqual(['Looking up your order…']);
    const text = await answerText(page);
    expect(text).toMatch(/^Your order SO20260901 is shipped\./);
    expect(text).toBe(await storedAnswer('browser-question'));
    await page.screenshot({ path: join(screenshots, 'use-chat-question.png') });
    await page.close();
  });

  it("shows the rejected call with arbiter's validation message, then the corrected one", async () => {
    const page = await open('browser-correct', testTokens.alice);
    await ask(page, 'Where is order 12345? The email says SO20260901.');
    await finished(page);
    expect(await toolStates(page)).toEqual(['output-error', 'output-available']);
    expect(await page.locator('[data-part="tool"] pre').textContent()).toContain(
      'expected a string matching ^SO\\d{8}$',
    );
    expect(await answerText(page)).toBe('Found it: order SO20260901 is shipped.');
    await page.close();
  });

  it('waits for an approver, who approves the refund from his page; both pages end with the answer', async () => {
    const customer = await open('browser-refund', testTokens.alice);
    await ask(customer, 'My teapot arrived cracked, I want a refund.');
    await customer.waitForSelector('[data-part="data-approval"]:has-text("Waiting for approval…")');
    expect(await customer.locator('button').count()).toBe(0);

    // The approver's inbox names the customer's chat by its session id; his page opens that.
    const inbox = await fetch(`${server.url}/v1/approvals`, {
      headers: { authorization: `Bearer ${testTokens.staff}` },
    });
    const { approvals } = (await inbox.json()) as { approvals: { sessionId: string; tool: string }[] };
    expect(approvals.map((approval) => approval.tool)).toEqual(['apply_refund']);
    const approver = await open(approvals[0]?.sessionId ?? '', testTokens.staff);
    await finished(approver, 'awaiting_approval');
    expect(await toolStates(approver)).toEqual(['output-available', 'approval-requested']);
    await approver.screenshot({ path: join(screenshots, 'use-chat-approval.png') });
    await approver.getByRole('button', { name: 'Approve' }).click();
    await finished(approver);
    expect(await toolStates(approver)).toEqual(['output-available', 'output-available']);

    await finished(customer);
    expect(await customer.locator('[data-part="data-approval"]').allTextContents()).toEqual(['Approved.']);
    expect(await toolStates(customer)).toEqual(['output-available', 'output-available']);
    const text = await answerText(customer);
    expect(text).toMatch(/^Done: your refund R\S+ of 200\.00 yuan for order SO20260902/);
    expect(await answerText(approver)).toBe(text);
    expect(text).toBe(await storedAnswer('browser-refund'));
    await customer.close();
    await approver.close();
  });

  it('resumes an answer after a reload in the middle of it: all of the text, once', async () => {
    const page = await open('browser-reload', testTokens.alice);
    await ask(page, 'Where is my order SO20260901?');
    await page.waitForFunction(
      () => {
        const paragraphs = (globalThis as unknown as PageGlobals).document.querySelectorAll(
          'section[data-role="assistant"] > p:not([data-part])',
        );
        return (paragraphs[0]?.textContent ?? '').length > 20;
      },
      undefined,
      { timeout: 20_000 },
    );
    const before = await answerText(page);
    expect(await page.locator('section[data-stop="completed"]').count()).toBe(0);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await finished(page);
    const after = await answerText(page);
    expect(after.startsWith(before)).toBe(true);
    expect(after).toBe(await storedAnswer('browser-reload'));
    expect(await page.locator('section[data-role="assistant"]').count()).toBe(1);
    expect(await toolStates(page)).toEqual(['output-available']);
    await page.close();
  });
});

/** `arbiter serve` in a process of its own, on a free port, with the test tokens and the test chat's script. */
async function serveArbiter(): Promise<{ url: string; process: ChildProcess; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-use-chat-'));
  writeFileSync(join(dataDir, 'auth.json'), JSON.stringify(testAuth));
  writeFileSync(join(dataDir, 'script.json'), JSON.stringify(uiChatScript));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts'),
      'serve',
      ...['--host', '127.0.0.1', '--port', String(port), '--data-dir', join(dataDir, 'store')],
      ...['--auth', join(dataDir, 'auth.json'), '--script', join(dataDir, 'script.json')],
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ARBITER_SCRIPTED_LATENCY_MS: '', ARBITER_STORE_URL: '' },
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('arbiter serve: listening on')) resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`arbiter serve exited (${code}) before listening: ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child, dataDir };
}

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
