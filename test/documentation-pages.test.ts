/**
 * The documentation's shape: a short README whose table of contents reaches
 * every page under docs/ in one hop, pages short enough to read, and no link
 * (to a file or to a heading) that leads nowhere. scripts/readme-smoke.sh runs
 * every code block of these pages; this checks what a reader clicks.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationPages } from './package/readme-snippets.js';

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;

/** The README's `## Contents` section. */
function contents(): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('\n## Contents\n');
  if (start < 0) throw new Error('README.md has no "## Contents" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const base = heading[1]
      .toLowerCase()
      .replaceAll(/[^\p{L}\p{N}\s_-]/gu, '')
      .replaceAll(' ', '-');
    let anchor = base;
    for (let repeat = 1; anchors.has(anchor); repeat += 1) anchor = `${base}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every `[text](target)` outside code blocks whose target is not a URL. */
function relativeLinks(file: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const match of line.replaceAll(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (!/^[a-z]+:/.test(target)) links.push(target);
    }
  }
  return links;
}

describe('the documentation pages', () => {
  const pages = documentationPages().filter((page) => page !== 'README.md');

  it('keep the README under 300 lines and every page under docs/ under 400', () => {
    expect(lines('README.md')).toBeLessThan(300);
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) expect(lines(page), page).toBeLessThan(400);
  });

  it("are each linked from the README's table of contents, one line each", () => {
    const table = contents();
    for (const page of pages) {
      const linking = table.split('\n').filter((line) => line.includes(`](${page})`));
      expect(linking, `${page} in the README's "## Contents"`).toHaveLength(1);
    }
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of [...documentationPages(), 'src/server/README.md']) {
      for (const link of relativeLinks(page)) {
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(target)) broken.push(`${page}: ${link} (no ${target})`);
        else if (anchor !== undefined && (statSync(target).isDirectory() || !anchorsOf(target).has(anchor))) {
          broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('are found by the link check when a link is broken (the check can fail)', () => {
    expect(anchorsOf('README.md').has('a-complete-example')).toBe(true);
    expect(anchorsOf('README.md').has('no-such-heading')).toBe(false);
    expect(anchorsOf('docs/serving.md').has('serve-it')).toBe(true);
  });
});
