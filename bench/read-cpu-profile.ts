/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and prints where the
 * time went: self time summed per function (name, file, line) and per
 * file, top N of each (default 25), as milliseconds and shares of all
 * samples. With `--per=<count>` each row is also given in µs per unit
 * (e.g. the number of steps the profiled process ran). Where a compiled
 * file has a source map beside it (tsconfig.bench.json writes them), the
 * function is named by its TypeScript file and line.
 *
 *   node dist-bench/bench/read-cpu-profile.js /tmp/prof/x.cpuprofile --top=25 --per=60000
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainModule } from './measure.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
    readonly columnNumber: number;
  };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileRow {
  readonly key: string;
  readonly selfMicroseconds: number;
  readonly share: number;
}

function shortUrl(url: string): string {
  if (url === '') return '(native)';
  const cleaned = url.replace(/^file:\/\//, '');
  const modules = cleaned.lastIndexOf('node_modules/');
  if (modules >= 0) return cleaned.slice(modules + 'node_modules/'.length);
  const bench = cleaned.indexOf('dist-bench/');
  if (bench >= 0) return cleaned.slice(bench + 'dist-bench/'.length);
  return cleaned;
}

const sourceMaps = new Map<string, SourceMap | undefined>();

function sourceMapOf(url: string): SourceMap | undefined {
  if (!url.startsWith('file://')) return undefined;
  if (!sourceMaps.has(url)) {
    const mapFile = `${fileURLToPath(url)}.map`;
    sourceMaps.set(url, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
  }
  return sourceMaps.get(url);
}

/** The frame's file and 1-based line, in the TypeScript source when a source map says where. */
function locate(frame: ProfileNode['callFrame']): { file: string; line: number } {
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber) as
    | { originalSource?: string; originalLine?: number }
    | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    const source = entry.originalSource.replace(/^file:\/\//, '');
    const root = source.search(/\/(src|bench|examples)\//);
    return { file: root >= 0 ? source.slice(root + 1) : source, line: entry.originalLine + 1 };
  }
  return { file: shortUrl(frame.url), line: frame.lineNumber + 1 };
}

/**
 * Self time per function and per file, largest first.
 *
 * @example
 * const { functions, files } = summariseCpuProfile(JSON.parse(readFileSync(path, 'utf8')));
 */
export function summariseCpuProfile(profile: CpuProfile): {
  functions: ProfileRow[];
  files: ProfileRow[];
  totalMicroseconds: number;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  profile.samples.forEach((nodeId, index) => {
    selfByNode.set(nodeId, (selfByNode.get(nodeId) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  for (const [nodeId, time] of selfByNode) {
    const frame = byId.get(nodeId)?.callFrame;
    if (frame === undefined) continue;
    total += time;
    const { file, line } = locate(frame);
    const name = `${frame.functionName || '(anonymous)'}  ${file}:${line}`;
    functions.set(name, (functions.get(name) ?? 0) + time);
    files.set(file, (files.get(file) ?? 0) + time);
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .map(([key, selfMicroseconds]) => ({ key, selfMicroseconds, share: selfMicroseconds / total }))
      .sort((left, right) => right.selfMicroseconds - left.selfMicroseconds);
  return { functions: rows(functions), files: rows(files), totalMicroseconds: total };
}

if (isMainModule(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: read-cpu-profile.js <file.cpuprofile> [--top=25] [--per=<units>]');
  const option = (name: string) => process.argv.find((argument) => argument.startsWith(`--${name}=`))?.split('=')[1];
  const top = Number(option('top') ?? '25');
  const per = option('per') === undefined ? undefined : Number(option('per'));
  const { functions, files, totalMicroseconds } = summariseCpuProfile(
    JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
  );
  const show = (row: ProfileRow) =>
    `${(row.selfMicroseconds / 1000).toFixed(1).padStart(9)} ms ${(row.share * 100).toFixed(1).padStart(5)}%${per === undefined ? '' : ` ${(row.selfMicroseconds / per).toFixed(2).padStart(7)} µs/unit`}  ${row.key}`;
  console.log(`total sampled ${(totalMicroseconds / 1000).toFixed(0)} ms`);
  console.log(`top ${top} functions by self time:`);
  for (const row of functions.slice(0, top)) console.log(show(row));
  console.log(`top ${top} files by self time:`);
  for (const row of files.slice(0, top)) console.log(show(row));
}
