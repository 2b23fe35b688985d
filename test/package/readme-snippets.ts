import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One fenced code block of the README or a page under docs/, with the section it stands in. */
export interface ReadmeSnippet {
  /** The file it stands in: `README.md`, `docs/mcp.md`. */
  readonly page: string;
  /** The nearest `## ` heading above it (or the page's `# ` title before the first), without the hashes. */
  readonly section: string;
  /** The fence's language: `ts`, `sh`, `json`… */
  readonly language: string;
  readonly code: string;
  /** The file it names on its first line (`// tools.ts`), if it names one. */
  readonly fileName: string | undefined;
}

/**
 * The fenced code blocks of a Markdown file, each with its section, so a
 * test can compile the documentation's snippets as a reader would paste them.
 *
 * @example
 * const typescript = readmeSnippets({ file: 'docs/install.md' }).filter((snippet) => snippet.language === 'ts');
 */
export function readmeSnippets({ file }: { file: string }): ReadmeSnippet[] {
  const snippets: ReadmeSnippet[] = [];
  let section = '';
  let open: { language: string; lines: string[] } | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (open !== undefined) {
      if (line.startsWith('```')) {
        const code = `${open.lines.join('\n')}\n`;
        const fileName = /^\/\/ ([\w.-]+\.ts)$/.exec(open.lines[0] ?? '')?.[1];
        snippets.push({ page: file, section, language: open.language, code, fileName });
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else if (line.startsWith('```')) {
      open = { language: line.slice(3).trim(), lines: [] };
    } else if (line.startsWith('## ') || line.startsWith('# ')) {
      section = line.slice(line.indexOf(' ') + 1).trim();
    }
  }
  return snippets;
}

/** The documentation's pages: the README, then every page under docs/. */
export function documentationPages(): string[] {
  const pages = readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', name));
  return ['README.md', ...pages];
}

/**
 * Every fenced code block of the README and of the pages under docs/.
 *
 * @example
 * const config = docsSnippets().find((snippet) => snippet.page === 'docs/mcp.md' && snippet.language === 'json');
 */
export function docsSnippets(): ReadmeSnippet[] {
  return documentationPages().flatMap((file) => readmeSnippets({ file }));
}
