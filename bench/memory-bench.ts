/**
 * Long-term memory recall on SQLite (a file database, WAL, as
 * `openSqliteBackend` opens it) holding 100,000 facts: exact key plus FTS5
 * lexical search, top 5, for one owner, p50 and p99 over 2,000 recalls
 * with random owners and queries (English and Chinese words), the facts
 * spread over 1,000 users of 10 tenants (100 each). With
 * `MEMORY_BENCH_WORST=1` also all 100,000 facts of a single user (the worst
 * case for one owner's search; filling takes as long again). The target is
 * on the spread layout's p99.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteBackend, type SqliteBackend } from '../src/store/sqlite/open-sqlite-backend.js';
import { type BenchResult, formatVerdict, isMainModule, type Target, target } from './measure.js';

const factCount = 100_000;
const recalls = 2_000;
const keys = ['city', 'drink', 'shirt_size', 'delivery_time', 'language', 'pet', 'team', 'allergy', 'budget', 'colour'];
const words = [
  'green',
  'tea',
  'coffee',
  'office',
  'evening',
  'weekend',
  'large',
  'small',
  'blue',
  'red',
  'cat',
  'dog',
  '上海',
  '北京',
  '杭州',
  '绿茶',
  '咖啡',
  '周末',
  '晚上',
  '公司',
  '猫',
  '狗',
  '蓝色',
  '红色',
];

/** A deterministic pseudo-random sequence, so every run stores and asks the same things. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function pick<Item>(items: readonly Item[], next: () => number): Item {
  return items[Math.floor(next() * items.length)] as Item;
}

function fill(backend: SqliteBackend, owners: readonly { tenantId: string; userId: string }[]): number {
  const next = random(7);
  const startedAt = performance.now();
  const insert = backend.database.transaction((from: number, to: number) => {
    for (let index = from; index < to; index += 1) {
      const owner = owners[index % owners.length] as { tenantId: string; userId: string };
      backend.memory.save({
        ...owner,
        // Distinct keys per owner, so saves add facts rather than superseding most of them.
        key: `${pick(keys, next)}_${Math.floor(index / owners.length)}`,
        value: `${pick(words, next)} ${pick(words, next)} ${pick(words, next)}`,
        source: { kind: 'user' },
        trusted: true,
      });
    }
  });
  for (let from = 0; from < factCount; from += 10_000) insert(from, from + 10_000);
  return performance.now() - startedAt;
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;
}

function measureRecalls(backend: SqliteBackend, owners: readonly { tenantId: string; userId: string }[]) {
  const next = random(11);
  const durations: number[] = [];
  let found = 0;
  for (let index = 0; index < recalls + 200; index += 1) {
    const owner = pick(owners, next);
    const request = {
      ...owner,
      key: `${pick(keys, next)}_0`,
      query: `${pick(words, next)} ${pick(words, next)}`,
      limit: 5,
    };
    const startedAt = process.hrtime.bigint();
    const recalled = backend.memory.recall(request);
    const elapsed = Number(process.hrtime.bigint() - startedAt) / 1e6;
    // The first 200 warm the caches and the prepared statements.
    if (index >= 200) {
      durations.push(elapsed);
      found += recalled.length;
    }
  }
  durations.sort((left, right) => left - right);
  return { p50: percentile(durations, 0.5), p99: percentile(durations, 0.99), meanFound: found / recalls };
}

async function layout(owners: readonly { tenantId: string; userId: string }[]) {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-memory-bench-'));
  const backend = openSqliteBackend({ path: join(directory, 'arbiter.db') });
  try {
    const fillMilliseconds = fill(backend, owners);
    return { fillMilliseconds, ...measureRecalls(backend, owners) };
  } finally {
    backend.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function runMemoryBench(): Promise<BenchResult> {
  const spreadOwners = Array.from({ length: 1_000 }, (_, index) => ({
    tenantId: `tenant-${index % 10}`,
    userId: `U${index}`,
  }));
  const spread = await layout(spreadOwners);
  const single =
    process.env.MEMORY_BENCH_WORST === '1' ? await layout([{ tenantId: 'shop', userId: 'C1001' }]) : undefined;
  const recallTarget = target({
    id: 'memory_recall_p99_ms',
    description: 'memory recall p99 (ms), 100,000 facts over 1,000 users, SQLite',
    value: spread.p99,
    comparison: '<=',
    limit: 5,
  });
  const targets: Target[] = [recallTarget];
  const row = (label: string, figures: typeof spread) =>
    `  ${label.padEnd(44)}${figures.p50.toFixed(3).padStart(10)} ms${figures.p99.toFixed(3).padStart(10)} ms${figures.meanFound.toFixed(1).padStart(9)}${(figures.fillMilliseconds / 1000).toFixed(1).padStart(10)} s`;
  return {
    lines: [
      `memory: recall (exact key + FTS5, top 5) over ${factCount.toLocaleString('en')} facts on a SQLite file, ${recalls} recalls`,
      `  ${''.padEnd(44)}${'p50'.padStart(13)}${'p99'.padStart(13)}${'found'.padStart(9)}${'fill'.padStart(12)}`,
      row('1,000 users in 10 tenants, 100 facts each', spread),
      ...(single === undefined ? [] : [row('1 user with all 100,000 facts', single)]),
      `  target: ${recallTarget.description}: ${formatVerdict(recallTarget)}`,
    ],
    ratios: {
      memoryRecallP50Milliseconds: spread.p50,
      memoryRecallP99Milliseconds: spread.p99,
      ...(single === undefined ? {} : { memorySingleUserRecallP99Milliseconds: single.p99 }),
    },
    targets,
    figures: { spread, ...(single === undefined ? {} : { single }) },
  };
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runMemoryBench();
  for (const line of lines) console.log(line);
}
