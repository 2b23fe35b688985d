import { readFileSync } from 'node:fs';

/** One fenced code block of the README, with the section it stands in. */
export interface ReadmeSnippet {
  /** The `## ` heading above it, without the hashes. */
  readonly section: string;
  /** The fence's language: `ts`, `sh`, `json`… */
  readonly language: string;
  readonly code: string;
  /** The file it names on its first line (`// tools.ts`), if it names one. */
  readonly fileName: string | undefined;
}

/**
 * The fenced code blocks of a Markdown file, each with its `## ` section,
 * so a test can compile the README's snippets as a reader would paste them.
 *
 * @example
 * const typescript = readmeSnippets({ file: 'README.md' }).filter((snippet) => snippet.language === 'ts');
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
        snippets.push({ section, language: open.language, code, fileName });
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else if (line.startsWith('```')) {
      open = { language: line.slice(3).trim(), lines: [] };
    } else if (line.startsWith('## ')) {
      section = line.slice(3).trim();
    }
  }
  return snippets;
}
