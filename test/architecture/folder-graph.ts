import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The floors of `src/`, ground floor first. A folder may import folders on
 * lower floors, and folders beside it on its own floor as long as no cycle
 * forms. `core` is the shared vocabulary and imports nothing of arbiter's.
 */
export const floors: Readonly<Record<string, number>> = {
  core: 0,
  errors: 0,
  util: 0,
  tools: 1,
  validation: 1,
  events: 1,
  models: 1,
  context: 1,
  routing: 2,
  memory: 2,
  gate: 2,
  store: 3,
  loop: 4,
  observe: 5,
  evaluation: 5,
  durable: 5,
  server: 6,
  mcp: 6,
  a2a: 6,
  cli: 6,
  adapters: 6,
};

/** One folder importing another, with the files that do it. */
export interface FolderEdge {
  readonly from: string;
  readonly to: string;
  readonly files: readonly string[];
}

const importPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

/**
 * Reads every shipped source file under `src/` (tests and test-support
 * excluded) and returns the folder-to-folder imports, type imports included.
 * An import that leaves `src/` is reported with the folder it lands in
 * (e.g. `examples`).
 */
export function readFolderGraph(root: string): FolderEdge[] {
  const source = path.join(root, 'src');
  const edges = new Map<string, Set<string>>();
  const visit = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'test-support') visit(full);
      } else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
        collect(full);
      }
    }
  };
  const collect = (file: string): void => {
    const relative = path.relative(source, file).split(path.sep);
    if (relative.length < 2) return;
    const from = relative[0] as string;
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const target = path.relative(source, path.resolve(path.dirname(file), match[2] as string)).split(path.sep);
      const to = target[0] === '..' ? (target[1] ?? '..') : target.length < 2 ? '(root)' : (target[0] as string);
      if (to === from) continue;
      const key = `${from}\u0000${to}`;
      const files = edges.get(key) ?? new Set<string>();
      files.add(path.relative(root, file));
      edges.set(key, files);
    }
  };
  visit(source);
  return [...edges]
    .map(([key, files]) => {
      const [from, to] = key.split('\u0000') as [string, string];
      return { from, to, files: [...files].sort() };
    })
    .sort((left, right) => left.from.localeCompare(right.from) || left.to.localeCompare(right.to));
}

/** The cycles among folders, each as the list of folders it passes through. */
export function findCycles(edges: readonly FolderEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const walk = (folder: string, trail: string[]): void => {
    const at = trail.indexOf(folder);
    if (at >= 0) {
      const cycle = trail.slice(at);
      const key = [...cycle].sort().join(',');
      if (!seen.has(key)) {
        seen.add(key);
        cycles.push([...cycle, folder]);
      }
      return;
    }
    for (const target of next.get(folder) ?? []) walk(target, [...trail, folder]);
  };
  for (const folder of next.keys()) walk(folder, []);
  return cycles;
}

/** Renders the graph as one line per folder: `loop -> context, core, …`. */
export function formatFolderGraph(edges: readonly FolderEdge[]): string {
  const byFolder = new Map<string, string[]>();
  for (const { from, to } of edges) byFolder.set(from, [...(byFolder.get(from) ?? []), to]);
  return [...byFolder]
    .sort(([left], [right]) => (floors[left] ?? 99) - (floors[right] ?? 99) || left.localeCompare(right))
    .map(([from, targets]) => `${`${from} (floor ${floors[from] ?? '?'})`.padEnd(20)} -> ${targets.join(', ')}`)
    .join('\n');
}
