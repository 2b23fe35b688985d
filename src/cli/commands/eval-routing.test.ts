import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RoutingReport } from '../../evaluation/routing-evaluation.js';
import { evalFromArgs } from './eval.js';

describe('arbiter eval --experiment routing', () => {
  it('prints the routing table that docs/routing.md shows (regenerate it when the set or the router changes)', async () => {
    const result = await evalFromArgs(['--experiment', 'routing']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toEqual([]);
    const table = result.stdout.filter((line) => line.startsWith('|')).join('\n');
    expect(table).toContain('| all ');
    expect(readFileSync('docs/routing.md', 'utf8')).toContain(table);
  });

  it('prints a JSON report with --json, and sends fewer tokens with a smaller --top', async () => {
    const [six, three] = await Promise.all([
      evalFromArgs(['--experiment', 'routing', '--json']),
      evalFromArgs(['--experiment', 'routing', '--json', '--top', '3']),
    ]);
    const reportSix = JSON.parse(six.stdout[0] ?? '') as RoutingReport;
    const reportThree = JSON.parse(three.stdout[0] ?? '') as RoutingReport;
    expect(reportSix.topK).toBe(6);
    expect(reportThree.topK).toBe(3);
    const routed = (report: RoutingReport) => report.summaries.at(-1)?.routedTokensPerStep ?? 0;
    expect(routed(reportThree)).toBeLessThan(routed(reportSix));
  });

  it('exits 2 on a bad --top or a routing set that cannot be read', async () => {
    expect((await evalFromArgs(['--experiment', 'routing', '--top', '0'])).exitCode).toBe(2);
    const missing = await evalFromArgs(['--experiment', 'routing', '--suite', '/no/such/set']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.join('\n')).toContain('/no/such/set/tools.json: cannot read the file');
  });
});
