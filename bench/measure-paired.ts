/**
 * Paired measurement of one operation against a baseline on a noisy
 * machine. A pair is one block of `callsPerBlock` subject calls and one
 * block of as many baseline calls, back to back, the order swapped from
 * one pair to the next; the subject block ends with its `settle` (work the
 * subject deferred, e.g. audit rows waiting for a transaction), timed with
 * it, so nothing it left behind is charged to the baseline. Each pair
 * gives a ratio; a burst of load from another process slows both blocks of
 * a pair alike and cancels out in it, and the median over many pairs
 * drops the pairs a burst hit one block of. The ratio of the totals is
 * kept beside it: it hides nothing (a cost that only some blocks pay),
 * noise included.
 *
 * @module
 */

import { median } from './measure.js';

/** One side of the comparison: the call, and what must run before its block counts as done. */
export interface PairedSide {
  readonly call: () => Promise<void>;
  /** Runs after the block's calls, inside its timing (deferred work of the side's own). */
  readonly settle?: () => void | Promise<void>;
}

/** How `subject / baseline - 1` (what the subject adds, as a fraction) spreads over the pairs. */
export interface AddedFraction {
  /** The median over the pairs: the figure a target is judged on. */
  readonly median: number;
  /** Quartiles over the pairs: half the pairs lie between them. */
  readonly lowerQuartile: number;
  readonly upperQuartile: number;
  /** A 95% confidence interval of the median (order statistics, no assumption on the distribution). */
  readonly confidenceLow: number;
  readonly confidenceHigh: number;
  /** Sum of the subject's blocks over the sum of the baseline's, minus one. */
  readonly ofTotals: number;
}

/** Medians over the blocks of one side, per call. */
export interface SideFigures {
  readonly wallNanoseconds: number;
  readonly cpuMicroseconds: number;
  /** Each counter's increase per call, median over the blocks. */
  readonly counters: Record<string, number>;
}

/** One block as measured: totals over its calls. */
export interface Block {
  /** When the block started and ended, `performance.now()` time (to place events such as collections in it). */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly wallNanoseconds: number;
  readonly cpuMicroseconds: number;
  /** Each counter's increase over the block. */
  readonly counters: Record<string, number>;
}

export interface PairedMeasurement {
  /** The blocks, pair by pair: `blocks.subject[i]` and `blocks.baseline[i]` ran back to back. */
  readonly blocks: { readonly subject: readonly Block[]; readonly baseline: readonly Block[] };
  readonly pairs: number;
  readonly callsPerBlock: number;
  readonly subject: SideFigures;
  readonly baseline: SideFigures;
  /** Wall time the subject adds. */
  readonly wall: AddedFraction;
  /** This process's CPU time (user + system, every thread) the subject adds. */
  readonly cpu: AddedFraction;
}

/**
 * Measures `subject` against `baseline` in `pairs` pairs of blocks (after
 * `warmupPairs` not counted). `counters` (e.g. another process's CPU time)
 * is read before and after each block, outside its timing.
 *
 * @example
 * const paired = await measurePaired({ subject: { call: throughArbiter, settle: () => audit.flush() }, baseline: { call: direct }, pairs: 200, callsPerBlock: 20 });
 * paired.wall.median; // 0.07: arbiter adds 7% to the call
 */
export async function measurePaired({
  subject,
  baseline,
  pairs,
  callsPerBlock,
  warmupPairs = 5,
  counters,
}: {
  subject: PairedSide;
  baseline: PairedSide;
  pairs: number;
  callsPerBlock: number;
  warmupPairs?: number;
  counters?: () => Record<string, number>;
}): Promise<PairedMeasurement> {
  const blocks = { subject: [] as Block[], baseline: [] as Block[] };
  for (let pair = 0; pair < warmupPairs + pairs; pair += 1) {
    const order = pair % 2 === 0 ? (['subject', 'baseline'] as const) : (['baseline', 'subject'] as const);
    for (const name of order) {
      const block = await runBlock(name === 'subject' ? subject : baseline, callsPerBlock, counters);
      if (pair >= warmupPairs) blocks[name].push(block);
    }
  }
  const ratioOf = (figure: (block: Block) => number): AddedFraction =>
    addedFraction(blocks.subject.map(figure), blocks.baseline.map(figure));
  return {
    blocks,
    pairs,
    callsPerBlock,
    subject: sideFigures(blocks.subject, callsPerBlock),
    baseline: sideFigures(blocks.baseline, callsPerBlock),
    wall: ratioOf((block) => block.wallNanoseconds),
    cpu: ratioOf((block) => block.cpuMicroseconds),
  };
}

async function runBlock(
  side: PairedSide,
  calls: number,
  counters: (() => Record<string, number>) | undefined,
): Promise<Block> {
  const countersBefore = counters?.() ?? {};
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const start = process.hrtime.bigint();
  for (let index = 0; index < calls; index += 1) await side.call();
  await side.settle?.();
  const wallNanoseconds = Number(process.hrtime.bigint() - start);
  const endedAt = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  const countersAfter = counters?.() ?? {};
  const increase: Record<string, number> = {};
  for (const [name, value] of Object.entries(countersAfter)) increase[name] = value - (countersBefore[name] ?? 0);
  return { startedAt, endedAt, wallNanoseconds, cpuMicroseconds: cpu.user + cpu.system, counters: increase };
}

function sideFigures(blocks: readonly Block[], calls: number): SideFigures {
  const names = Object.keys(blocks[0]?.counters ?? {});
  return {
    wallNanoseconds: median(blocks.map((block) => block.wallNanoseconds)) / calls,
    cpuMicroseconds: median(blocks.map((block) => block.cpuMicroseconds)) / calls,
    counters: Object.fromEntries(
      names.map((name) => [name, median(blocks.map((block) => block.counters[name] ?? Number.NaN)) / calls]),
    ),
  };
}

/**
 * What `subject[i] / baseline[i] - 1` says over the pairs `i`.
 *
 * @example
 * addedFraction([110, 120, 130], [100, 100, 100]).median; // 0.2 (up to rounding)
 */
export function addedFraction(subject: readonly number[], baseline: readonly number[]): AddedFraction {
  const added = subject
    .map((value, index) => value / (baseline[index] as number) - 1)
    .sort((left, right) => left - right);
  const count = added.length;
  const at = (rank: number) => added[Math.min(count - 1, Math.max(0, rank))] as number;
  // Ranks of the median's 95% interval: count/2 ± 1.96·√count/2 (the sign test's normal approximation).
  const reach = Math.ceil((1.96 * Math.sqrt(count)) / 2);
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  return {
    median: median(added),
    lowerQuartile: at(Math.floor((count - 1) / 4)),
    upperQuartile: at(Math.ceil(((count - 1) * 3) / 4)),
    confidenceLow: at(Math.floor((count - 1) / 2) - reach),
    confidenceHigh: at(Math.ceil((count - 1) / 2) + reach),
    ofTotals: sum(subject) / sum(baseline) - 1,
  };
}
