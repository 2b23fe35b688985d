import { errorKinds } from './error-kind.js';
import { pairedSignTest } from './paired-sign-test.js';
import { type ExperimentRow, type FirstCallRow, rowKey, type YieldRow } from './run-yield-experiment.js';
import { wilsonInterval } from './wilson-interval.js';
import { type YieldCondition, yieldConditions } from './yield-conditions.js';

/** What a results file says about its run (its first line). */
export interface YieldReportHeader {
  readonly model: string;
  readonly commit: string;
  readonly startedAt: string;
  readonly threads: number;
  readonly decoding: string;
}

/**
 * The correction-yield tables as Markdown lines: per model, first-call
 * validity with and without strict tools; then per condition the share of
 * next calls that are valid, and valid and the intended call, with 95%
 * Wilson intervals, recovery within two turns, mean turns to recover and
 * tokens; then the share of right next calls per error kind and condition.
 *
 * @example
 * writeFileSync('report.md', formatYieldReport({ rows, headers }).join('\n'));
 */
export function formatYieldReport({
  rows,
  headers,
}: {
  rows: readonly ExperimentRow[];
  headers: readonly YieldReportHeader[];
}): string[] {
  // A row written twice (two runs on one file) counts once: the first.
  const seen = new Set<string>();
  const unique = rows.filter((row) => !seen.has(rowKey(row)) && seen.add(rowKey(row)));
  const models = [...new Set(unique.map((row) => row.model))];
  const lines: string[] = ['# Correction yield: results', ''];
  for (const header of headers) {
    lines.push(
      `- ${header.model}: commit ${header.commit}, started ${header.startedAt}, ${header.threads} thread(s), ${header.decoding}`,
    );
  }
  lines.push('');
  for (const model of models) {
    const mine = unique.filter((row) => row.model === model);
    lines.push(`## ${model}`, '', ...firstCallTable(mine.filter(isFirstCall)), '');
    const trials = onSameCalls(mine.filter(isYield));
    lines.push(...conditionTable(trials), '', ...kindTable(trials), '', ...pairedTable(trials), '');
  }
  return lines;
}

/** Every condition on the same calls: a call some condition has not answered yet (a run cut short) is left out. */
function onSameCalls(rows: readonly YieldRow[]): YieldRow[] {
  const conditions = new Set(rows.map((row) => row.condition));
  const answered = new Map<string, Set<YieldCondition>>();
  for (const row of rows) answered.set(row.call, (answered.get(row.call) ?? new Set()).add(row.condition));
  return rows.filter((row) => answered.get(row.call)?.size === conditions.size);
}

function isFirstCall(row: ExperimentRow): row is FirstCallRow {
  return row.phase === 'first_call';
}

function isYield(row: ExperimentRow): row is YieldRow {
  return row.phase === 'yield';
}

function share(successes: number, total: number): string {
  if (total === 0) return '–';
  const { low, high } = wilsonInterval({ successes, total });
  return `${percent(successes / total)} [${percent(low)}–${percent(high)}]`;
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function firstCallTable(rows: readonly FirstCallRow[]): string[] {
  const lines = [
    'First call for each request (greedy): share of requests, 95% Wilson interval. "Invalid" is what a framework that trusts the model would have run unvalidated.',
    '',
    '| tools | requests | valid and intended | valid, other call | invalid | no call |',
    '| --- | ---: | --- | --- | --- | --- |',
  ];
  for (const tools of ['original', 'strict'] as const) {
    const mine = rows.filter((row) => row.tools === tools);
    const count = (outcome: FirstCallRow['outcome']) => mine.filter((row) => row.outcome === outcome).length;
    lines.push(
      `| ${tools === 'strict' ? 'after toStrictTools' : 'as defined'} | ${mine.length} | ${share(count('intended'), mine.length)} | ${share(count('valid_other'), mine.length)} | ${share(count('invalid'), mine.length)} | ${share(count('no_call'), mine.length)} |`,
    );
  }
  return lines;
}

function conditionTable(rows: readonly YieldRow[]): string[] {
  const calls = new Set(rows.map((row) => row.call)).size;
  const lines = [
    `Next call after the refusal, ${calls} broken calls, every condition on the same calls. Shares with 95% Wilson intervals; tokens are per broken call, summed over the turns (whole context as billed, and generated).`,
    '',
    '| condition | n | next call valid | next call valid and intended | recovered within 2 turns | mean turns to recover | mean input tokens | mean output tokens |',
    '| --- | ---: | --- | --- | --- | ---: | ---: | ---: |',
  ];
  for (const condition of yieldConditions) {
    const mine = rows.filter((row) => row.condition === condition);
    if (mine.length === 0) continue;
    const recovered = mine.filter((row) => row.outcome === 'corrected_1' || row.outcome === 'corrected_2');
    const turns =
      recovered.length === 0 ? '–' : (recovered.reduce((sum, row) => sum + row.turns, 0) / recovered.length).toFixed(2);
    const mean = (pick: (row: YieldRow) => number) =>
      Math.round(mine.reduce((sum, row) => sum + pick(row), 0) / mine.length);
    lines.push(
      `| ${condition} | ${mine.length} | ${share(mine.filter((row) => row.nextValid).length, mine.length)} | ${share(mine.filter((row) => row.nextRight).length, mine.length)} | ${share(recovered.length, mine.length)} | ${turns} | ${mean((row) => row.inputTokens)} | ${mean((row) => row.outputTokens)} |`,
    );
  }
  return lines;
}

function kindTable(rows: readonly YieldRow[]): string[] {
  const conditions = yieldConditions.filter((condition) => rows.some((row) => row.condition === condition));
  const lines = [
    "Next call valid and intended, per error kind (read from arbiter's issues): right / calls, share, 95% Wilson interval.",
    '',
    `| kind | ${conditions.join(' | ')} |`,
    `| --- | ${conditions.map(() => '---').join(' | ')} |`,
  ];
  for (const kind of errorKinds) {
    const mine = rows.filter((row) => row.kind === kind);
    if (mine.length === 0) continue;
    const cells = conditions.map((condition) => {
      const cell = mine.filter((row) => row.condition === condition);
      const right = cell.filter((row) => row.nextRight).length;
      return cell.length === 0 ? '–' : `${right}/${cell.length} ${share(right, cell.length)}`;
    });
    lines.push(`| ${kind} | ${cells.join(' | ')} |`);
  }
  return lines;
}

/**
 * arbiter's message against each other condition, paired on the same calls: the calls whose next call was
 * right after arbiter's message only, and after the other text only, with the exact McNemar p-value.
 */
function pairedTable(rows: readonly YieldRow[]): string[] {
  const others = yieldConditions.filter(
    (condition) => condition !== 'arbiter' && rows.some((row) => row.condition === condition),
  );
  if (others.length === 0 || !rows.some((row) => row.condition === 'arbiter')) return [];
  const lines = [
    "arbiter's message against each other condition on the same calls: calls right (valid and intended) after arbiter's message only : after the other text only, and the exact two-sided McNemar p-value. A kind where the second count is higher is one where arbiter's message loses.",
    '',
    `| kind | ${others.join(' | ')} |`,
    `| --- | ${others.map(() => '---').join(' | ')} |`,
  ];
  const right = new Map(rows.map((row) => [`${row.call}|${row.condition}`, row.nextRight] as const));
  for (const kind of [...errorKinds, 'all'] as const) {
    const calls = [...new Set(rows.filter((row) => kind === 'all' || row.kind === kind).map((row) => row.call))];
    if (calls.length === 0) continue;
    const cells = others.map((other) => {
      const arbiterOnly = calls.filter((call) => right.get(`${call}|arbiter`) && !right.get(`${call}|${other}`)).length;
      const otherOnly = calls.filter((call) => !right.get(`${call}|arbiter`) && right.get(`${call}|${other}`)).length;
      const { p } = pairedSignTest({ firstOnly: arbiterOnly, secondOnly: otherOnly });
      return `${arbiterOnly} : ${otherOnly} (p ${p < 0.001 ? '< 0.001' : p.toFixed(3)})`;
    });
    lines.push(`| ${kind === 'all' ? '**all kinds**' : kind} | ${cells.join(' | ')} |`);
  }
  return lines;
}
