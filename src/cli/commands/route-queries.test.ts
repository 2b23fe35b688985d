import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeQueries } from './route-queries.js';

const tools = 'evals/routing/tools.json';

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'arbiter-route-')), name);
  writeFileSync(path, text);
  return path;
}

function lines(...values: unknown[]): string {
  return `${values.map((value) => JSON.stringify(value)).join('\n')}\n`;
}

describe('arbiter route', () => {
  it('prints, per request, the top K tools in the order of the tools file, and exits 0', () => {
    const queries = file(
      'queries.jsonl',
      lines(
        { id: 'parcel', query: 'Where is my parcel? When will it be delivered?' },
        { id: 'refund', query: '收到的杯子是碎的，我要退款' },
      ),
    );
    const result = routeQueries({ toolsFile: tools, queriesFile: queries, top: 3 });
    expect(result.stderr).toEqual([]);
    expect(result.exitCode).toBe(0);
    const [parcel, refund] = result.stdout.map((line) => JSON.parse(line) as { id: string; tools: string[] });
    expect(parcel?.id).toBe('parcel');
    expect(parcel?.tools).toContain('track_shipment');
    expect(parcel?.tools.length).toBeLessThanOrEqual(3);
    expect(refund?.tools).toContain('apply_refund');
    // Registry order, not score order: the prompt prefix stays the same for the same tools.
    const order = (JSON.parse(readFileSync(tools, 'utf8')) as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    for (const line of [parcel, refund]) {
      const positions = (line?.tools ?? []).map((name) => order.indexOf(name));
      expect(positions).toEqual([...positions].sort((left, right) => left - right));
    }
  });

  it('exits 1 when a request matches no tool, and prints it with no tools', () => {
    const queries = file(
      'queries.jsonl',
      lines({ id: 'hi', query: 'hello!' }, { id: 'order', query: 'cancel my order' }),
    );
    const result = routeQueries({ toolsFile: tools, queriesFile: queries });
    expect(result.exitCode).toBe(1);
    expect(result.stdout[0]).toBe('{"id":"hi","tools":[]}');
    expect(result.stderr).toMatchInlineSnapshot(`
      [
        "1 of 2 requests matched no tool (hi): they share no word with any tool's name, description or parameters, so a run would send every tool",
      ]
    `);
  });

  it.each([
    ['a line that is not JSON', '{"id": "a", "query": "x"}\n{"id": "b", ', /queries\.jsonl:2: not valid JSON/],
    [
      'a query that is not a string',
      lines({ id: 'a', query: 42 }),
      /queries\.jsonl:1: "query" must be the request as a string/,
    ],
    ['an id that is not a string', lines({ id: 7, query: 'x' }), /queries\.jsonl:1: "id" must be a string/],
    ['an array line', lines([1, 2]), /queries\.jsonl:1: expected a request object/],
  ])('exits 2 on %s, naming the file and line', (_kind, text, message) => {
    const result = routeQueries({ toolsFile: tools, queriesFile: file('queries.jsonl', text) });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toEqual([]);
    expect(result.stderr.join('\n')).toMatch(message);
  });

  it('exits 2 on a missing queries file and on a broken tools file', () => {
    const queries = file('queries.jsonl', lines({ id: 'a', query: 'x' }));
    expect(routeQueries({ toolsFile: tools, queriesFile: '/no/such/file.jsonl' }).exitCode).toBe(2);
    const broken = file('tools.json', '[{"type": "function", "function": {"name": "bad name!", "parameters": {}}}]');
    const result = routeQueries({ toolsFile: broken, queriesFile: queries });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.join('\n')).toContain('tools.json');
  });

  it('runs from the real entry point, with --top, and refuses a bad --top', () => {
    const queries = file('queries.jsonl', lines({ id: 'q1', query: 'I forgot my password and cannot log in' }));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'route', ...args], { encoding: 'utf8' });
    const ok = run('--tools', tools, '--queries', queries, '--top', '1');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('{"id":"q1","tools":["reset_password"]}\n');
    expect(run('--tools', tools, '--queries', queries, '--top', 'zero').status).toBe(2);
    expect(run('--tools', tools).status).toBe(2);
  });
});
