import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../util/canonical-json.js';
import { auditFieldsHash, auditRecordFormat, auditRecordHash } from './audit-record-hash.js';

/** The hash as the format defines it: sha256 over `canonicalJson` of the tagged tuple, null fields left out. */
function definedHash({
  record,
  link,
}: {
  record: Record<string, string | number | null>;
  link: { writer: string; seq: number; previousHash: string | null };
}): string {
  const fields: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value !== null)
      Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  }
  const tuple = [
    auditRecordFormat,
    { record: fields, writer: link.writer, seq: link.seq, previous: link.previousHash },
  ];
  return createHash('sha256').update(canonicalJson(tuple)).digest('hex');
}

describe('auditRecordHash written field by field', () => {
  it('hashes the same text as canonicalJson of the tuple, whatever the names, values and their order', () => {
    const name = fc.oneof(fc.string(), fc.constantFrom('at', 'toolCallId', '0', '10', '9', '__proto__', 'a"b', 'é'));
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('a"b', 'back\\slash', '\u0000', '\u001f', '\ud800', 'x\udc00', '\u2028', '中文', '😀'),
      fc.integer(),
      fc.double(),
      fc.constant(-0),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, value), { maxLength: 12 }),
        fc.record({
          writer: fc.oneof(fc.string(), fc.string({ unit: 'binary' })),
          seq: fc.nat(),
          previousHash: fc.option(fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 })), {
            nil: null,
          }),
        }),
        (entries, link) => {
          const record: Record<string, string | number | null> = {};
          for (const [key, item] of entries) {
            Object.defineProperty(record, key, { value: item, enumerable: true, writable: true, configurable: true });
          }
          expect(auditRecordHash({ record, link })).toBe(definedHash({ record, link }));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('hashes a row given as values and a field list the same as the record of those fields', () => {
    const name = fc.oneof(fc.string(), fc.constantFrom('at', 'toolCallId', '0', '10', '9', '__proto__', 'a"b', 'é'));
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('a"b', 'back\\slash', '\u0000', '\u001f', '\ud800', 'x\udc00', '\u2028', '中文', '😀'),
      fc.integer(),
      fc.double(),
      fc.constant(-0),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(name, value), { maxLength: 12, selector: ([key]) => key }),
        fc.record({
          writer: fc.oneof(fc.string(), fc.string({ unit: 'binary' })),
          seq: fc.nat(),
          previousHash: fc.option(fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 })), {
            nil: null,
          }),
        }),
        (entries, link) => {
          const sorted = [...entries].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
          const fields = sorted.map(([key], index) => ({ name: key, key: index }));
          const values = sorted.map(([, item]) => item);
          const record: Record<string, string | number | null> = {};
          for (const [key, item] of entries) {
            Object.defineProperty(record, key, { value: item, enumerable: true, writable: true, configurable: true });
          }
          expect(auditFieldsHash({ fields, values, link })).toBe(definedHash({ record, link }));
          // Written again from the writer made for this field list the first time.
          expect(auditFieldsHash({ fields, values, link })).toBe(definedHash({ record, link }));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('hashes each of many rows of one field list right when their values repeat the rows before them', () => {
    // One list for every run, as a store's is: the writer keeps each field's last text, which a row may reuse.
    const fields = ['approver', 'arguments', 'at', 'runId', 'step', 'tool'].map((name, key) => ({ name, key }));
    const value = fc.constantFrom<string | number | null>(
      'a"b',
      'run-1',
      'run-2',
      '\ud800',
      0,
      -0,
      1.5,
      Number.NaN,
      null,
    );
    const link = { writer: 'sqlite', seq: 1, previousHash: null };
    fc.assert(
      fc.property(fc.array(fc.array(value, { minLength: 6, maxLength: 6 }), { minLength: 2, maxLength: 8 }), (rows) => {
        for (const values of rows) {
          const record = Object.fromEntries(fields.map(({ name, key }) => [name, values[key] ?? null]));
          expect(auditFieldsHash({ fields, values, link })).toBe(definedHash({ record, link }));
        }
      }),
      { numRuns: 300 },
    );
  });
  it('hashes rows linked onto the hash before them, and any other previous or writer, as the format defines', () => {
    // The tuple quotes a previous hash equal to the last one computed without testing it, and keeps the last
    // writer's text: a chain linked row after row, mixed with previous values and writers that need escaping.
    const fields = ['arguments', 'at', 'tool'].map((name, key) => ({ name, key }));
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('a"b', '\ud800', 'x\\y', ''));
    const row = fc.record({
      values: fc.tuple(text, fc.oneof(fc.integer(), fc.double()), text),
      previous: fc.oneof(fc.constant<'last'>('last'), fc.constant(null), text),
      writer: fc.oneof(fc.constantFrom('sqlite', 'node-1'), text),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), (rows) => {
        let last: string | null = null;
        rows.forEach(({ values, previous, writer }, index) => {
          const link = { writer, seq: index + 1, previousHash: previous === 'last' ? last : previous };
          const record = Object.fromEntries(fields.map(({ name, key }) => [name, values[key] ?? null]));
          const hash = auditFieldsHash({ fields, values, link });
          expect(hash).toBe(definedHash({ record, link }));
          expect(auditRecordHash({ record, link })).toBe(hash);
          last = hash;
        });
      }),
      { numRuns: 300 },
    );
  });
  it('hashes a row as the store writes it (its arguments a JSON text, linked onto a hash) as the format defines', () => {
    const fields = ['arguments', 'argumentsHash', 'at', 'durationMs', 'runId', 'toolCallId'].map((name, key) => ({
      name,
      key,
    }));
    const previousHash = 'f18c6c370a355daf5a5110317b21a141f0e1a2b3507bbc9819d7afbace7cffe1';
    for (const values of [
      ['{"order_id":"SO20260001"}', '6b85fb383a8b', 1796677270192, 0.167878000000087, 'run-1', 'call_1'],
      ['["a","b"]', null, 1, 0, 'x"y', 'call\n2'],
      ['{}', 'a', -0, 1e21, '', '{"'],
    ]) {
      for (const link of [
        { writer: 'sqlite', seq: 2, previousHash },
        { writer: 'sqlite', seq: 1, previousHash: null },
      ]) {
        const record = Object.fromEntries(fields.map(({ name, key }) => [name, values[key] ?? null]));
        expect(auditFieldsHash({ fields, values, link })).toBe(definedHash({ record, link }));
      }
    }
  });
});
