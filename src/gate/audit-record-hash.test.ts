import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditRecordFormat, auditRecordHash, linkAuditRecords } from './audit-record-hash.js';

const record = { at: 1_700_000_000_000, tool: 'send_payment', tenantId: 'bank', rule: null, arguments: '{"a":1}' };
const link = { writer: 'w-1', seq: 1, previousHash: null };

describe('auditRecordHash', () => {
  it('hashes the tagged tuple of named fields, nulls left out', () => {
    const expected = createHash('sha256')
      .update(
        '["arbiter-audit-v2",{"previous":null,"record":{"arguments":"{\\"a\\":1}","at":1700000000000,"tenantId":"bank","tool":"send_payment"},"seq":1,"writer":"w-1"}]',
      )
      .digest('hex');
    expect(auditRecordFormat).toBe('arbiter-audit-v2');
    expect(auditRecordHash({ record, link })).toBe(expected);
  });

  it('does not depend on the order of the fields, and a field added empty leaves it unchanged', () => {
    const reordered = { arguments: '{"a":1}', tenantId: 'bank', tool: 'send_payment', at: 1_700_000_000_000 };
    const withNewColumn = { ...record, addedLater: null };
    expect(auditRecordHash({ record: reordered, link })).toBe(auditRecordHash({ record, link }));
    expect(auditRecordHash({ record: withNewColumn, link })).toBe(auditRecordHash({ record, link }));
    expect(auditRecordHash({ record: { ...record, addedLater: 'x' }, link })).not.toBe(
      auditRecordHash({ record, link }),
    );
  });

  it('binds the row to its writer, place and previous row', () => {
    const hash = auditRecordHash({ record, link });
    expect(auditRecordHash({ record, link: { ...link, writer: 'w-2' } })).not.toBe(hash);
    expect(auditRecordHash({ record, link: { ...link, seq: 2 } })).not.toBe(hash);
    expect(auditRecordHash({ record, link: { ...link, previousHash: 'ab' } })).not.toBe(hash);
    // A value moved to another field is another record, whatever the column order of a table.
    expect(auditRecordHash({ record: { ...record, tool: 'bank', tenantId: 'send_payment' }, link })).not.toBe(hash);
  });
});

describe('linkAuditRecords', () => {
  it('links records onto a head, counting places from it, and leaves the head it was given alone', () => {
    const head = { seq: 4, hash: 'f'.repeat(64) };
    const { links, head: after } = linkAuditRecords({ records: [record, record], writer: 'w-1', head });
    expect(links.map(({ seq, previousHash }) => ({ seq, previousHash }))).toEqual([
      { seq: 5, previousHash: head.hash },
      { seq: 6, previousHash: links[0]?.chainHash },
    ]);
    expect(after).toEqual({ seq: 6, hash: links[1]?.chainHash });
    expect(head).toEqual({ seq: 4, hash: 'f'.repeat(64) });
  });
});
