import { describe, expect, it } from 'vitest';
import {
  checkStepCounts,
  formatFindings,
  guardBaselinePath,
  measureAllStepCounts,
  readGuardBaseline,
} from '../bench/step-guard.js';

/**
 * The per-step regression guard (bench/step-guard.ts): what a step of the
 * in-memory and the durable path asks of SQLite, counted, against the
 * committed baseline. No clock is read, so a busy machine cannot fail it,
 * and a step that does more work fails it on any machine. After adding
 * work to a step on purpose: `npm run bench -- guard --update`.
 */
describe('the per-step guard', () => {
  it('passes: no step asks SQLite for more than 10% above the committed baseline', async () => {
    const findings = checkStepCounts({ measured: await measureAllStepCounts(), baseline: readGuardBaseline() });
    const over = findings.filter((finding) => finding.over);
    expect(
      over,
      `over the baseline (${guardBaselinePath}); if the extra work is intended, run npm run bench -- guard --update:\n${formatFindings(over).join('\n')}`,
    ).toEqual([]);
  }, 60_000);

  it('fails on a deliberately slowed step: one more statement per step shows on both paths', async () => {
    const slowed = await measureAllStepCounts({
      eachStep: (database) => {
        database.prepare('SELECT count(*) FROM sessions').get();
      },
    });
    const over = checkStepCounts({ measured: slowed, baseline: readGuardBaseline() }).filter((finding) => finding.over);
    expect(over.map(({ path, count }) => `${path} ${count}`)).toEqual(
      expect.arrayContaining(['arbiter_memory statements', 'arbiter_durable statements']),
    );
  }, 60_000);

  it('fails on pages a step writes with no statement more: indexes on columns every step commit sets', async () => {
    const schema = `CREATE INDEX sessions_by_message_count ON sessions (message_count);
      CREATE INDEX sessions_by_step_count ON sessions (step_count);`;
    const indexed = await measureAllStepCounts({ schema });
    const findings = checkStepCounts({ measured: indexed, baseline: readGuardBaseline() });
    expect(findings.filter((finding) => finding.over).map(({ path, count }) => `${path} ${count}`)).toEqual([
      'arbiter_durable pages',
    ]);
    const plain = await measureAllStepCounts();
    expect(indexed.arbiter_durable.statements).toBe(plain.arbiter_durable.statements);
    expect(indexed.arbiter_durable.pages).toBeGreaterThanOrEqual(plain.arbiter_durable.pages + 1.9);
  }, 60_000);

  it('counts the same twice: the figures do not depend on timing', async () => {
    const first = await measureAllStepCounts();
    const second = await measureAllStepCounts();
    for (const path of ['arbiter_memory', 'arbiter_durable'] as const) {
      const { statements, rows, commits, pages } = second[path];
      expect({ statements, rows, commits, pages }).toEqual({
        statements: first[path].statements,
        rows: first[path].rows,
        commits: first[path].commits,
        pages: first[path].pages,
      });
    }
  }, 60_000);
});
