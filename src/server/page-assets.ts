import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file of the chat page, ready to serve. */
export interface PageAsset {
  readonly body: string;
  readonly contentType: string;
  /** Further response headers (every page forbids framing and any script or connection not its own). */
  readonly headers?: Readonly<Record<string, string>>;
}

const files: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/chat.js': 'chat.js',
  '/chat.css': 'chat.css',
  '/desk': 'desk.html',
  '/desk.js': 'desk.js',
  '/desk.css': 'desk.css',
  // How both pages show a tool's fields (money, dates): one rule, imported by chat.js and desk.js.
  '/field-format.js': 'field-format.js',
  '/favicon.svg': 'favicon.svg',
  // Browsers ask for /favicon.ico whatever the page links; any image type is accepted there.
  '/favicon.ico': 'favicon.svg',
};

const contentTypes: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/**
 * Both pages show third parties' text (tool arguments, reasons, model text) and have approve buttons (the
 * desk; the chat page in demo mode): no other site may frame them (clickjacking), and nothing but their own
 * files may run or be loaded.
 */
const pageHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The chat page and the approver's desk (plain HTML, CSS and JavaScript in `src/server/page`, no
 * build step), read once, by URL path. From a compiled copy under `dist/`
 * the files are looked up next to it first, then in the source tree.
 *
 * @example
 * const assets = loadPageAssets();
 * assets.get('/')?.contentType; // 'text/html; charset=utf-8'
 */
export function loadPageAssets(): ReadonlyMap<string, PageAsset> {
  const directory = [new URL('./page/', import.meta.url), new URL('../../../src/server/page/', import.meta.url)].find(
    (candidate) => existsSync(fileURLToPath(new URL('index.html', candidate))),
  );
  const assets = new Map<string, PageAsset>();
  if (directory === undefined) return assets;
  for (const [path, file] of Object.entries(files)) {
    const extension = file.slice(file.lastIndexOf('.') + 1);
    assets.set(path, {
      body: readFileSync(fileURLToPath(new URL(file, directory)), 'utf8'),
      contentType: contentTypes[extension] ?? 'application/octet-stream',
      headers: pageHeaders,
    });
  }
  return assets;
}
