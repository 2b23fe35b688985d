// The README's fenced code blocks, for scripts/readme-smoke.sh, so it runs them as printed and knows when one
// has no step. A block is named by its section (the `## ` heading, or `## … / ### …`) and a text only it holds.
//   node readme-blocks.mjs list                    one line per block: SECTION<TAB>LANGUAGE<TAB>FIRST LINE
//   node readme-blocks.mjs get SECTION MARKER      the one block of SECTION whose code holds MARKER
//   node readme-blocks.mjs uncovered FILE          blocks no line of FILE (SECTION<TAB>MARKER) names; exit 1 if any
import { readFileSync } from 'node:fs';

function blocks() {
  const found = [];
  let section = '';
  let subsection = '';
  let open;
  for (const line of readFileSync('README.md', 'utf8').split('\n')) {
    if (open !== undefined) {
      if (line.startsWith('```')) {
        found.push({ ...open, code: `${open.lines.join('\n')}\n`, first: open.lines[0] ?? '' });
        open = undefined;
      } else open.lines.push(line);
    } else if (line.startsWith('```')) {
      open = {
        section: subsection === '' ? section : `${section} / ${subsection}`,
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
} else {
  process.stderr.write(`readme-blocks: unknown command ${command}\n`);
  process.exit(2);
}
