import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCycles, floors, formatFolderGraph, readFolderGraph } from './folder-graph.js';

const root = path.resolve(import.meta.dirname, '../..');
const edges = readFolderGraph(root);

describe('the folders of src/', () => {
  it('prints which folder imports which', () => {
    console.info(`\nfolder dependencies of src/:\n${formatFolderGraph(edges)}\n`);
    expect(edges.length).toBeGreaterThan(20);
  });

  it('places every folder on a floor', () => {
    const unplaced = [...new Set(edges.flatMap(({ from, to }) => [from, to]))].filter(
      (folder) => folder !== '(root)' && !(folder in floors),
    );
    expect(unplaced).toEqual([]);
  });

  it('keeps core free of imports from the rest of arbiter', () => {
    expect(edges.filter(({ from }) => from === 'core')).toEqual([]);
  });

  it('imports only downwards or sideways', () => {
    const upwards = edges
      .filter(({ from, to }) => from !== '(root)' && to !== '(root)' && (floors[to] ?? 99) > (floors[from] ?? -1))
      .map(({ from, to, files }) => `${from} -> ${to} (${files.join(', ')})`);
    expect(upwards).toEqual([]);
  });

  it('has no cycle among folders, type imports included', () => {
    expect(findCycles(edges).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('never imports examples/ from src/', () => {
    expect(edges.filter(({ to }) => to === 'examples').flatMap(({ files }) => files)).toEqual([]);
  });
});

describe('readFolderGraph', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'arbiter-folders-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds value, type and dynamic imports, and the cycle they form', () => {
    for (const folder of ['a', 'b', 'c']) mkdirSync(path.join(scratch, 'src', folder), { recursive: true });
    writeFileSync(path.join(scratch, 'src/a/one.ts'), "import { two } from '../b/two.js';\n");
    writeFileSync(path.join(scratch, 'src/b/two.ts'), "import type { Three } from '../c/three.js';\n");
    writeFileSync(path.join(scratch, 'src/c/three.ts'), "const a = await import('../a/one.js');\n");
    writeFileSync(path.join(scratch, 'src/c/three.test.ts'), "import '../../examples/demo.js';\n");
    const graph = readFolderGraph(scratch);
    expect(graph.map(({ from, to }) => `${from}->${to}`)).toEqual(['a->b', 'b->c', 'c->a']);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });
});
