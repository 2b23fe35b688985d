/**
 * What the audit's hash chain costs on the durable path: `runSession` on a
 * SQLite file (commit per step, tier gate, audit in the same file) with
 * the chain against the same schema without it (migration 28 left out),
 * in pairs of blocks measured back to back (`measurePaired`), so a burst
 * of load from elsewhere slows both sides of a pair alike. Beside it, the
 * audit append alone, per row, both ways: one committed row (a call that
 * is not a read commits its row before it goes on) and rows batched in
 * one transaction (reads), where the chain's hashing is most of the work.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../src/gate/audit-log.js';
import { migrations as allMigrations } from '../src/store/sqlite/migrations/index.js';
import type { Migration } from '../src/store/sqlite/migrations/migration.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { arbiterDurablePath } from './agent-paths.js';
import { type BenchResult, formatVerdict, isMainModule, target } from './measure.js';
import { measurePaired, type PairedMeasurement } from './measure-paired.js';

const unchained: readonly Migration[] = allMigrations.filter(
  (migration) => migration.name !== 'audit_hash_chain' && migration.name !== 'audit_chain_writers',
);
const steps = 20;

const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;
const spread = (paired: PairedMeasurement) =>
  `median +${percent(paired.wall.median)} (95% CI ${percent(paired.wall.confidenceLow)} … ${percent(paired.wall.confidenceHigh)}), CPU +${percent(paired.cpu.median)}`;

/** A run of `steps` read calls through `runSession`, with and without the chain. */
async function durableRuns(pairs: number): Promise<PairedMeasurement> {
  const chained = arbiterDurablePath();
  const plain = arbiterDurablePath({ migrations: unchained });
  const side = (path: typeof chained) => {
    const task = path.task(steps);
    return {
      call: async () => {
        await task.prepare?.();
        await task.run();
      },
    };
  };
  try {
    return await measurePaired({ subject: side(chained), baseline: side(plain), pairs, callsPerBlock: 4 });
  } finally {
    chained.close();
    plain.close();
  }
}

const entry = (index: number, sideEffect: AuditEntry['sideEffect']): AuditEntry => ({
  at: Date.now(),
  sessionId: 'session-1',
  runId: 'run-1',
  step: index,
  toolCallId: `call_${index}`,
  tool: sideEffect === 'read' ? 'query_order' : 'apply_refund',
  sideEffect,
  argumentsHash: 'b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c',
  arguments: { order_id: 'SO20260901', amount_cents: 20_000 },
  decision: sideEffect === 'read' ? 'allowed' : 'approved',
  rule: sideEffect === 'read' ? undefined : 'refund_50_or_more',
  approver: sideEffect === 'read' ? undefined : 'li.wei',
  tenantId: 'shop',
  userId: 'C1001',
  outcome: 'ok',
  durationMs: 1.5,
});

/** The audit append alone: `rows` appends per call, committed one by one or batched. */
async function appends(kind: 'committed' | 'batched', pairs: number): Promise<PairedMeasurement> {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-chain-bench-'));
  const open = (name: string, migrations: readonly Migration[]) => {
    const store = openSqliteStore({ path: join(directory, `${name}.db`), migrations });
    return { store, audit: new SqliteAuditLog({ database: store.database }) };
  };
  const chained = open('chained', allMigrations);
  const plain = open('plain', unchained);
  let index = 0;
  const next = () => {
    index += 1;
    return index;
  };
  const side = ({ audit }: { audit: SqliteAuditLog }) =>
    kind === 'committed'
      ? {
          call: async () => {
            await audit.append(entry(next(), 'irreversible'));
          },
        }
      : {
          call: async () => {
            for (let row = 0; row < 20; row += 1) void audit.append(entry(next(), 'read'));
          },
          settle: () => audit.flush(),
        };
  try {
    return await measurePaired({
      subject: side(chained),
      baseline: side(plain),
      pairs,
      callsPerBlock: kind === 'committed' ? 50 : 10,
    });
  } finally {
    chained.store.close();
    plain.store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function runAuditChainBench(): Promise<BenchResult> {
  const quick = process.env.BENCH_QUICK === '1';
  const durable = await durableRuns(quick ? 10 : 60);
  const committed = await appends('committed', quick ? 10 : 60);
  const batched = await appends('batched', quick ? 10 : 60);
  const chainTarget = target({
    id: 'audit_chain_durable_run_added',
    description: `the audit hash chain on the durable path (runSession, SQLite file, ${steps} steps): added wall time`,
    value: durable.wall.median,
    limit: 0.1,
    comparison: '<=',
  });
  return {
    lines: [
      'audit hash chain (SQLite file; chained schema vs the same without migration 28, paired blocks)',
      `  durable run of ${steps} steps: ${(durable.baseline.wallNanoseconds / 1e6).toFixed(2)} ms → ${(durable.subject.wallNanoseconds / 1e6).toFixed(2)} ms per run, ${spread(durable)}`,
      `  target: ${formatVerdict(chainTarget)}`,
      `  one committed row (not a read): ${(committed.baseline.wallNanoseconds / 1e3).toFixed(1)} µs → ${(committed.subject.wallNanoseconds / 1e3).toFixed(1)} µs, ${spread(committed)}`,
      `  20 read rows batched in one transaction: ${(batched.baseline.wallNanoseconds / 1e3).toFixed(1)} µs → ${(batched.subject.wallNanoseconds / 1e3).toFixed(1)} µs, ${spread(batched)}`,
    ],
    ratios: {
      audit_chain_durable_run: 1 + durable.wall.median,
      audit_chain_committed_row: 1 + committed.wall.median,
      audit_chain_batched_reads: 1 + batched.wall.median,
    },
    targets: [chainTarget],
  };
}

if (isMainModule(import.meta.url)) {
  const result = await runAuditChainBench();
  for (const line of result.lines) console.log(line);
}
