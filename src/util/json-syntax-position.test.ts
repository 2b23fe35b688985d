import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxPosition, jsonSyntaxProblem } from './json-syntax-position.js';

describe('jsonSyntaxPosition', () => {
  it('names the line and column of a trailing comma, a missing comma and a cut-off file', () => {
    expect(jsonSyntaxPosition('{\n  "tokens": [\n    {"token": "a"},\n  ]\n}\n')).toEqual({ line: 4, column: 3 });
    expect(jsonSyntaxPosition('{\n  "tokens": [],\n}')).toEqual({ line: 3, column: 1 });
    expect(jsonSyntaxPosition('{"a": 1\n "b": 2}')).toEqual({ line: 2, column: 2 });
    expect(jsonSyntaxPosition('{"a": [1,\n')).toEqual({ line: 2, column: 1 });
    expect(jsonSyntaxPosition('{"a": tru}')).toEqual({ line: 1, column: 7 });
    expect(jsonSyntaxPosition('{"a": 1} x')).toEqual({ line: 1, column: 10 });
    expect(jsonSyntaxPosition('')).toEqual({ line: 1, column: 1 });
  });

  it('says nothing of valid JSON, whatever it holds', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, "x\\n\\u00e9", true, false, null, {"b": {}}]} ', '"s"', '0']) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(jsonSyntaxPosition(text)).toBeUndefined();
    }
  });
});

describe('jsonSyntaxProblem', () => {
  it('says what is wrong in words that quote one character at most', () => {
    expect(jsonSyntaxProblem('{\n  "tokens": [\n    {"token": "secret-1"},\n  ]\n}\n')).toEqual({
      line: 4,
      column: 3,
      problem: 'not valid JSON: unexpected "]" (a trailing comma before it?)',
    });
    expect(jsonSyntaxProblem('{"token": "secret-1"\n "roles": []}')).toEqual({
      line: 2,
      column: 2,
      problem: 'not valid JSON: unexpected "\\"" (a missing comma before it?)',
    });
    expect(jsonSyntaxProblem('{"token": "secret-1"')).toEqual({
      line: 1,
      column: 21,
      problem: 'not valid JSON: the text ends before the JSON does',
    });
  });
});

describe('jsonSyntaxPosition against JSON.parse', () => {
  it('finds no fault in any JSON text, and a fault in every text JSON.parse refuses', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 2 }), (value, indent) => {
        expect(jsonSyntaxPosition(JSON.stringify(value, null, indent))).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.constantFrom(',', ']', '}', '"', ':', 'x', ''), (text, at, insert) => {
        const cut = at % (text.length + 1);
        const changed = `${text.slice(0, cut)}${insert}${text.slice(cut + (insert === '' ? 1 : 0))}`;
        let parses = true;
        try {
          JSON.parse(changed);
        } catch {
          parses = false;
        }
        expect(jsonSyntaxPosition(changed) === undefined).toBe(parses);
      }),
    );
  });
});
