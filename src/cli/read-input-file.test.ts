import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError } from '../errors/input-file-error.js';
import { readCallsFile, readToolsFile } from './read-input-file.js';

const fixtures = 'test/fixtures';
const scratch = mkdtempSync(join(tmpdir(), 'arbiter-input-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function scratchFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

function inputError(read: () => unknown): InputFileError {
  try {
    read();
  } catch (error) {
    if (InputFileError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InputFileError');
}

describe('readToolsFile', () => {
  it('reads a JSON array of tools in OpenAI function-calling format', () => {
    const tools = readToolsFile({ path: 'examples/shop/shop-tools.openai.json' });
    expect(tools.map((tool) => tool.function.name)).toEqual([
      'query_order',
      'track_shipment',
      'query_refund',
      'add_order_note',
      'apply_refund',
    ]);
  });

  it('keeps the strict flag and leaves out what the file leaves out', () => {
    const path = scratchFile('minimal.json', '[{"type":"function","function":{"name":"get_time","strict":true}}]');
    expect(readToolsFile({ path })).toEqual([{ type: 'function', function: { name: 'get_time', strict: true } }]);
  });

  it('rejects an unreadable path, naming the file', () => {
    const error = inputError(() => readToolsFile({ path: `${fixtures}/does-not-exist.json` }));
    expect(error.message).toBe('test/fixtures/does-not-exist.json: cannot read the file (ENOENT)');
    expect(error.file).toBe('test/fixtures/does-not-exist.json');
  });

  it('rejects invalid JSON, naming the file and the line', () => {
    const error = inputError(() => readToolsFile({ path: `${fixtures}/malformed-tools.txt` }));
    expect(error.line).toBe(7);
    expect(error.message).toMatch(/^test\/fixtures\/malformed-tools\.txt:7: not valid JSON \(.+\)$/);
  });

  it('rejects a single tool object instead of an array', () => {
    const error = inputError(() => readToolsFile({ path: `${fixtures}/not-an-array-tools.json` }));
    expect(error.message).toMatchInlineSnapshot(
      `"test/fixtures/not-an-array-tools.json: expected a JSON array of tools in OpenAI function-calling format, [{"type": "function", "function": {"name": …, "description": …, "parameters": …}}], got an object"`,
    );
  });

  it('rejects a tool without the function wrapper, naming its index', () => {
    const path = scratchFile('bare.json', '[{"name":"query_order","parameters":{"type":"object"}}]');
    expect(inputError(() => readToolsFile({ path })).message).toBe(
      `${path}: tool [0]: expected {"type": "function", "function": {"name": …}}, got an object`,
    );
  });

  it('rejects a name, description or parameters of the wrong type', () => {
    const cases: [string, string][] = [
      ['{"name":42}', 'tool [0]: "function.name" must be a string, got number 42'],
      ['{"name":"a_b","description":["x"]}', 'tool [0]: "function.description" of a_b must be a string, got an array'],
      [
        '{"name":"a_b","parameters":"object"}',
        'tool [0]: "function.parameters" of a_b must be a JSON Schema object, got string "object"',
      ],
    ];
    for (const [definition, message] of cases) {
      const path = scratchFile('typed.json', `[{"type":"function","function":${definition}}]`);
      expect(inputError(() => readToolsFile({ path })).message).toBe(`${path}: ${message}`);
    }
  });
});

describe('readCallsFile', () => {
  it('reads calls with arguments as a string or an object, skipping blank lines', () => {
    const path = scratchFile(
      'calls.jsonl',
      [
        '{"id":"a","name":"query_order","arguments":"{\\"order_id\\": \\"SO20260901\\"}"}',
        '',
        '   ',
        '{"id":"b","name":"query_order","arguments":{"order_id":"SO20260901"}}',
        '{"id":"c","type":"function","function":{"name":"query_order","arguments":"{}"}}',
        '{"name":"query_order","arguments":[1]}',
      ].join('\r\n'),
    );
    expect(readCallsFile({ path })).toEqual([
      { id: 'a', name: 'query_order', rawArguments: '{"order_id": "SO20260901"}', line: 1 },
      { id: 'b', name: 'query_order', rawArguments: '{"order_id":"SO20260901"}', line: 4 },
      { id: 'c', name: 'query_order', rawArguments: '{}', line: 5 },
      { id: 'line-6', name: 'query_order', rawArguments: '[1]', line: 6 },
    ]);
  });

  it('passes a malformed arguments string through untouched, for the validator to report', () => {
    const [call] = readCallsFile({ path: `${fixtures}/shop-calls.jsonl` }).filter(
      (entry) => entry.id === 'call_malformed_json',
    );
    expect(call?.rawArguments).toBe('{"order_id": "SO20260901"');
  });

  it('rejects a line that is not JSON, naming the file and the line', () => {
    const error = inputError(() => readCallsFile({ path: `${fixtures}/malformed-calls.jsonl` }));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^test\/fixtures\/malformed-calls\.jsonl:3: not valid JSON \(.+\)$/);
  });

  it('rejects a call without a name', () => {
    expect(inputError(() => readCallsFile({ path: `${fixtures}/calls-without-name.jsonl` })).message).toBe(
      'test/fixtures/calls-without-name.jsonl:2: "name" must be the tool name as a string, got nothing',
    );
  });

  it('rejects a call without arguments, a non-object line and a non-string id', () => {
    const cases: [string, string][] = [
      [
        '{"id":"x","name":"query_order"}',
        'call to query_order has no "arguments" (an object or the JSON string the model sent)',
      ],
      ['["query_order"]', 'expected a tool call object {"id", "name", "arguments"}, got an array'],
      ['{"id":7,"name":"query_order","arguments":{}}', '"id" must be a string, got number 7'],
    ];
    for (const [line, message] of cases) {
      const path = scratchFile('bad-call.jsonl', `${line}\n`);
      expect(inputError(() => readCallsFile({ path })).message).toBe(`${path}:1: ${message}`);
    }
  });

  it('rejects an unreadable path', () => {
    expect(inputError(() => readCallsFile({ path: scratch })).message).toBe(
      `${scratch}: cannot read the file (EISDIR)`,
    );
  });
});

describe('input size cap', () => {
  it('rejects /dev/zero after the cap instead of reading forever', () => {
    const error = inputError(() => readToolsFile({ path: '/dev/zero', maxBytes: 1024 * 1024 }));
    expect(error.message).toBe('/dev/zero: larger than 1 MiB, the most arbiter reads from one input file');
    expect(error.file).toBe('/dev/zero');
  });

  it('rejects a calls file over the default cap of 16 MiB', () => {
    const path = scratchFile('big.jsonl', `${'{"name":"x","arguments":{}}\n'.repeat(600_000)}`);
    expect(inputError(() => readCallsFile({ path })).message).toMatch(/big\.jsonl: larger than 16 MiB, the most/);
  });

  it('reads a file of exactly the cap', () => {
    const path = scratchFile('exact.json', `[${' '.repeat(98)}]`);
    expect(readToolsFile({ path, maxBytes: 100 })).toEqual([]);
  });
});
