import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputFileError } from '../errors/input-file-error.js';
import { loadSuite } from './load-suite.js';

function suiteDirectory(files: Record<string, unknown>): string {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-suite-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(directory, path, '..'), { recursive: true });
    writeFileSync(join(directory, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return directory;
}

const script = { name: 's', turns: [{ steps: [{ say: 'Hi.' }] }] };

function loadError(directory: string): string {
  try {
    loadSuite({ directory });
  } catch (error) {
    if (InputFileError.isInstance(error)) return error.message.replaceAll(directory, '<suite>');
    throw error;
  }
  throw new Error('expected loadSuite to fail');
}

describe('loadSuite', () => {
  it('applies the defaults, reads scripts relative to the case and keeps file order', () => {
    const directory = suiteDirectory({
      'suite.json': {
        name: 'demo',
        defaults: { model: { script }, principal: { tenantId: 't', userId: 'u', roles: [] }, limits: { maxSteps: 3 } },
      },
      'cases/02-second.json': { id: 'second', category: 'b', input: ['a', 'b'], expect: {}, limits: { maxSteps: 5 } },
      'cases/01-first.json': {
        id: 'first',
        category: 'a',
        input: 'hello',
        model: { script: '../scripts/hello.json' },
        expect: { stopReason: 'completed' },
      },
      'scripts/hello.json': { name: 'hello', turns: [] },
      'cases/notes.txt': 'not a case',
    });
    const suite = loadSuite({ directory });
    expect(suite.cases.map((evalCase) => [evalCase.id, evalCase.input, evalCase.limits])).toEqual([
      ['first', ['hello'], { maxSteps: 3 }],
      ['second', ['a', 'b'], { maxSteps: 5 }],
    ]);
    expect(suite.cases[0]?.model).toEqual({ script: { name: 'hello', turns: [] } });
    expect(suite.cases[1]?.principal).toEqual({ tenantId: 't', userId: 'u', roles: [] });
    expect(suite.cases[0]?.errorStyle).toBe('full');
  });

  it('refuses a case file with every problem named, as arbiter names a bad tool call', () => {
    const directory = suiteDirectory({
      'suite.json': { name: 'demo', defaults: { model: 'configured' } },
      'cases/bad.json': {
        id: 'Bad Case',
        input: 'hi',
        expect: { stopReason: 'finished', anser: { contains: ['x'] } },
      },
    });
    // The wording is the validator's; what matters here is that every problem is named, by field.
    const lines = loadError(directory).split('\n');
    expect(lines[0]).toBe('<suite>/cases/bad.json: not a valid case file:');
    expect(
      lines
        .slice(1)
        .map((line) => /^ {2}`([^`]+)`: /.exec(line)?.[1])
        .sort(),
    ).toEqual(['category', 'expect.anser', 'expect.stopReason', 'id']);
    expect(lines.find((line) => line.includes('`id`'))).toContain('You sent the string "Bad Case"');
    expect(lines.find((line) => line.includes('`expect.anser`'))).toContain('remove it');
  });

  it('refuses a directory without a suite, a case without a model, and two cases with one id', () => {
    expect(loadError(suiteDirectory({ 'cases/a.json': {} }))).toBe(
      '<suite>/suite.json: no suite here (expected a suite.json)',
    );
    expect(
      loadError(
        suiteDirectory({
          'suite.json': { name: 'demo' },
          'cases/a.json': { id: 'a', category: 'c', input: 'x', expect: {} },
        }),
      ),
    ).toBe('<suite>/cases/a.json: no model: give "model" here or in the suite\'s defaults');
    expect(
      loadError(
        suiteDirectory({
          'suite.json': { name: 'demo', defaults: { model: 'configured' } },
          'cases/a.json': { id: 'same', category: 'c', input: 'x', expect: {} },
          'cases/b.json': { id: 'same', category: 'c', input: 'x', expect: {} },
        }),
      ),
    ).toBe('<suite>/cases/b.json: case id "same" is already used by <suite>/cases/a.json');
    expect(loadError(suiteDirectory({ 'suite.json': '{"name": "demo",', 'cases/a.json': {} })).split(' (')[0]).toBe(
      '<suite>/suite.json: not valid JSON',
    );
  });
});
