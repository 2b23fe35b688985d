import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openShopDatabase } from '../../../examples/shop/shop-database.js';
import { runShopDemo } from '../../../examples/shop/shop-demo.js';
import { createShopTools } from '../../../examples/shop/shop-tools.js';
import { EventBus } from '../../events/event-bus.js';
import { runAgent } from '../../loop/run-agent.js';
import { ScriptedModel } from '../../models/scripted-model.js';
import { createTraceWriter } from '../../observe/trace-writer.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { parsePrice, statsCommand, statsFromArgs } from './stats.js';

const quiet = () => {};

describe('arbiter stats', () => {
  it("prints the metrics of the demo's runs from its run store", async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-stats-'));
    await runShopDemo({ dataDirectory, write: quiet, approval: 'approve' });
    await runShopDemo({ dataDirectory, write: quiet, errorStyle: 'vague' });
    const store = openSqliteStore({ path: join(dataDirectory, 'arbiter.db') });
    const stored = store.listRuns();
    store.close();
    expect(stored.length).toBeGreaterThanOrEqual(3);
    const completed = stored.filter((run) => run.stopReason === 'completed').length;
    const handedOff = stored.filter((run) => run.stopReason === 'tool_failures').length;
    expect(handedOff).toBe(1);

    const result = await statsCommand({ dataDirectory });
    expect(result.exitCode).toBe(0);
    expect(result.stdout[0]).toBe(
      `runs in ${dataDirectory}: ${stored.length} (${stored.length} in arbiter.db, ${stored.length} in traces.jsonl)`,
    );
    const table = result.stdout.join('\n');
    const percent = (count: number) => `${((count / stored.length) * 100).toFixed(1)}%`;
    expect(table).toMatch(new RegExp(`\\| task completion rate +\\| +${percent(completed)} \\|`));
    expect(table).toMatch(new RegExp(`\\| hand-off rate +\\| +${percent(handedOff)} \\|`));
    expect(table).toMatch(/\| p95 latency +\| +\d+ ms \|/);
    // The demo also writes a trace, so the tool-level rows have figures.
    expect(table).toMatch(/\| tool success rate +\| +\d+\.\d% \|/);

    const json = JSON.parse(
      (await statsFromArgs(['--data-dir', dataDirectory, '--json', '--price', '1,4,USD'])).stdout[0] ?? '',
    );
    expect(json.metrics).toMatchObject({
      runs: stored.length,
      currency: 'USD',
      handOffRate: handedOff / stored.length,
    });
    expect(json.metrics.costPerTask).toBeGreaterThan(0);

    const prometheus = (await statsFromArgs(['--data-dir', dataDirectory, '--prometheus'])).stdout;
    expect(prometheus).toContain(`arbiter_runs ${stored.length}`);
    expect(prometheus).toContain('arbiter_runs_by_stop_reason{stop_reason="tool_failures"} 1');
  });

  it('adds tool success, repeated calls and gate denials when the directory holds a trace', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-stats-trace-'));
    const registry = new ToolRegistry();
    for (const tool of createShopTools({ database: openShopDatabase({ path: ':memory:' }) })) registry.register(tool);
    const bus = new EventBus();
    const trace = createTraceWriter({
      bus,
      write: (line) => appendFileSync(join(dataDirectory, 'traces.jsonl'), `${line}\n`),
    });
    const model = new ScriptedModel({
      script: {
        name: 'stats',
        onUnclearError: 'repeat',
        turns: [{ steps: [{ call: { name: 'query_order', arguments: { order_id: 'SO20269999' } } }, { say: 'x' }] }],
      },
    });
    const result = await runAgent({
      model,
      tools: registry,
      messages: [{ role: 'user', content: 'Where is SO20269999?' }],
      principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
      events: bus,
      journal: trace.journal(),
    });
    await new Promise((resolve) => setImmediate(resolve));
    trace.stop();
    expect(result.stopReason).toBe('tool_failures');

    const stats = await statsCommand({ dataDirectory, json: true });
    const { metrics, tracedRuns } = JSON.parse(stats.stdout[0] ?? '');
    expect(tracedRuns).toBe(1);
    expect(metrics).toMatchObject({
      runs: 1,
      handOffRate: 1,
      toolCalls: 2,
      toolSuccessRate: 0,
      repeatedCallRate: 0.5,
      gateDenials: 0,
    });
  });

  it('exits 1 when the directory holds no runs, and 2 on a bad flag', async () => {
    const empty = await statsCommand({ dataDirectory: mkdtempSync(join(tmpdir(), 'arbiter-stats-empty-')) });
    expect(empty.exitCode).toBe(1);
    expect(empty.stderr[0]).toMatch(/^no runs recorded in .* yet/);
    expect((await statsCommand({ dataDirectory: 'runs-here' })).stderr).toEqual([
      'no runs recorded in runs-here yet (looked for arbiter.db and traces.jsonl); the demo records some: ' +
        '`npm run demo -- --data-dir runs-here` from a checkout (`arbiter demo` where the package is installed)',
    ]);
    expect(await statsFromArgs(['--price', 'cheap'])).toMatchObject({ exitCode: 2 });
    expect(await statsFromArgs(['--limit', '0'])).toMatchObject({ exitCode: 2 });
  });
});

describe('parsePrice', () => {
  it('reads input and output prices per million tokens and an optional currency', () => {
    expect(parsePrice('0.15, 0.60, USD')).toEqual({ inputPerMillion: 0.15, outputPerMillion: 0.6, currency: 'USD' });
    expect(parsePrice('2,8')).toEqual({ inputPerMillion: 2, outputPerMillion: 8 });
    expect(() => parsePrice('2')).toThrow('--price must be INPUT,OUTPUT[,CURRENCY]');
  });
});
