// The fenced code blocks of the README and of every page under docs/, for scripts/readme-smoke.sh, so it runs
// them as printed and knows when one has no step. A block is named by its section and a text only it holds; a
// section is the page, then its `## ` and `### ` headings: `README.md / Quick start`, `docs/mcp.md / Use an MCP
// server's tools` (`docs/ag-ui.md` alone for a block above a page's first `## `).
//   node readme-blocks.mjs list                    one line per block: SECTION<TAB>LANGUAGE<TAB>FIRST LINE
//   node readme-blocks.mjs get SECTION MARKER      the one block of SECTION whose code holds MARKER
//   node readme-blocks.mjs uncovered FILE          blocks no line of FILE (SECTION<TAB>MARKER) names; exit 1 if any
//   node readme-blocks.mjs unlinked                pages under docs/ the README's "## Contents" does not link; exit 1
import { readdirSync, readFileSync } from 'node:fs';

const pages = () => [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

function blocksOf(page) {
  const found = [];
  let section = '';
  let subsection = '';
  let open;
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    if (open !== undefined) {
      if (line.startsWith('```')) {
        found.push({ ...open, code: `${open.lines.join('\n')}\n`, first: open.lines[0] ?? '' });
        open = undefined;
      } else open.lines.push(line);
    } else if (line.startsWith('```')) {
      open = {
        section: [page, section, subsection].filter((part) => part !== '').join(' / '),
        language: line.slice(3).trim(),
        lines: [],
      };
    } else if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      subsection = '';
    } else if (line.startsWith('### ')) subsection = line.slice(4).trim();
  }
  return found;
}
const blocks = () => pages().flatMap(blocksOf);

const [command, ...args] = process.argv.slice(2);
if (command === 'list') {
  for (const block of blocks()) console.log(`${block.section}\t${block.language}\t${block.first}`);
} else if (command === 'get') {
  const [section, marker] = args;
  const matches = blocks().filter((block) => block.section === section && block.code.includes(marker));
  if (matches.length !== 1) {
    process.stderr.write(`readme-blocks: ${matches.length} blocks of "${section}" hold "${marker}"\n`);
    process.exit(1);
  }
  process.stdout.write(matches[0].code);
} else if (command === 'uncovered') {
  const named = readFileSync(args[0], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
  const missing = blocks().filter(
    (block) => !named.some(([section, marker]) => block.section === section && block.code.includes(marker)),
  );
  for (const block of missing) console.log(`${block.section}: ${block.first}`);
  process.exit(missing.length === 0 ? 0 : 1);
} else if (command === 'unlinked') {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('\n## Contents\n');
  const end = start < 0 ? -1 : readme.indexOf('\n## ', start + 1);
  const contents = start < 0 ? '' : readme.slice(start, end < 0 ? undefined : end);
  const unlinked = pages().filter((page) => page !== 'README.md' && !contents.includes(`](${page})`));
  for (const page of unlinked) console.log(page);
  process.exit(unlinked.length === 0 ? 0 : 1);
} else {
  process.stderr.write(`readme-blocks: unknown command ${command}\n`);
  process.exit(2);
}
