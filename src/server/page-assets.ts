import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file of the chat page, ready to serve. */
export interface PageAsset {
  readonly body: string;
  readonly contentType: string;
}

const files: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/chat.js': 'chat.js',
  '/chat.css': 'chat.css',
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
 * The chat page (plain HTML, CSS and JavaScript in `src/server/page`, no
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
    });
  }
  return assets;
}
