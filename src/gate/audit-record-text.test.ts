import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../util/canonical-json.js';
import { auditRecordFormat, auditRecordHash } from './audit-record-hash.js';

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
    const value = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.constant(null));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, value), { maxLength: 12 }),
        fc.record({
          writer: fc.string(),
          seq: fc.nat(),
          previousHash: fc.option(fc.string({ minLength: 1 }), { nil: null }),
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
});
