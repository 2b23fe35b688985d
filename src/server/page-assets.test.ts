import { afterEach, describe, expect, it } from 'vitest';
import { loadPageAssets } from './page-assets.js';
import { startTestServer, type TestServer } from './test-support/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('loadPageAssets', () => {
  it('forbids framing every page and file, the chat page as the desk', () => {
    const assets = loadPageAssets();
    expect([...assets.keys()]).toEqual(expect.arrayContaining(['/', '/chat.js', '/desk', '/desk.js']));
    for (const [path, asset] of assets) {
      expect({ path, frame: asset.headers?.['X-Frame-Options'] }).toEqual({ path, frame: 'DENY' });
      expect(asset.headers?.['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    }
  });
});

describe('the chat page over HTTP', () => {
  it.each([
    ['demo mode, with its approve buttons', true],
    ['with an auth file', false],
  ])('sends X-Frame-Options DENY and frame-ancestors none on / (%s), as on /desk', async (_, demoAuth) => {
    server = await startTestServer({ demoAuth });
    for (const path of ['/', '/desk']) {
      const page = await fetch(`${server.url}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      await page.text();
    }
  });
});
