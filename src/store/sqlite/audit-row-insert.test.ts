import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AuditRow, type AuditRowValues, auditWrittenColumns } from '../audit-rows.js';
import { createAuditRowInsert } from './audit-row-insert.js';
import { openSqliteStore } from './sqlite-store.js';

const columns = auditWrittenColumns.split(',').map((column) => column.trim());

function row(overrides: Partial<Record<string, string | number | null>> = {}): AuditRowValues {
  const base: Record<string, string | number | null> = {
    at: 1_796_000_000_000,
    session_id: null,
    run_id: 'run-1',
    step: 1,
    tool_call_id: 'call_1',
    tool: 'query_order',
    side_effect: 'read',
    arguments_hash: 'a'.repeat(64),
    arguments: '{"order_id":"SO20260901"}',
    decision: 'allowed',
    rule: null,
    approver: null,
    outcome: 'ok',
    duration_ms: 0.25,
    tenant_id: null,
    user_id: null,
    replay_of_run_id: null,
    replay_of_tool_call_id: null,
    ...overrides,
  };
  return columns.map((column) => base[column] ?? null);
}

function stored(database: ReturnType<typeof openSqliteStore>['database']): AuditRowValues[] {
  const rows = database.prepare('SELECT * FROM audit_log ORDER BY audit_id').all() as AuditRow[];
  return rows.map((entry) => columns.map((column) => entry[column as keyof AuditRow] as string | number | null));
}

describe('createAuditRowInsert', () => {
  it('writes each row as given, shared and differing columns alike, in order', () => {
    const store = openSqliteStore({ path: ':memory:' });
    const insert = createAuditRowInsert(store.database);
    const rows = [
      row(),
      row({ step: 2, tool_call_id: 'call_2', tenant_id: 'shop', user_id: "O'Brien" }),
      row({ step: 2, tool_call_id: 'call_3', side_effect: 'irreversible', decision: 'denied', outcome: 'not_run' }),
    ];
    insert(rows);
    insert([row({ run_id: 'run-2', session_id: 'session-9', rule: 'r', approver: 'ops@shop' })]);
    expect(stored(store.database)).toEqual([
      ...rows,
      row({ run_id: 'run-2', session_id: 'session-9', rule: 'r', approver: 'ops@shop' }),
    ]);
    store.close();
  });

  it('splits more than 32 rows into several statements and keeps every one', () => {
    const store = openSqliteStore({ path: ':memory:' });
    const rows = Array.from({ length: 70 }, (_, index) => row({ step: index + 1, tool_call_id: `call_${index}` }));
    createAuditRowInsert(store.database)(rows);
    expect(stored(store.database)).toEqual(rows);
    store.close();
  });

  it('stores any mix of shared, null and differing values exactly (property)', () => {
    const store = openSqliteStore({ path: ':memory:' });
    const insert = createAuditRowInsert(store.database);
    const text = fc.oneof(fc.constant(null), fc.constantFrom('x', 'y', "it's"), fc.string({ maxLength: 8 }));
    const rowArbitrary = fc.record({
      session_id: text,
      run_id: fc.constantFrom('run-a', 'run-b'),
      step: fc.integer({ min: 1, max: 3 }),
      tool: fc.constantFrom('query_order', 'refund'),
      side_effect: fc.constantFrom('read', 'reversible', 'irreversible'),
      decision: fc.constantFrom('allowed', 'denied', 'approved'),
      rule: text,
      approver: text,
      outcome: fc.constantFrom('ok', 'not_run'),
      tenant_id: text,
      user_id: text,
      replay_of_run_id: text,
    });
    let written: AuditRowValues[] = [];
    fc.assert(
      fc.property(fc.array(rowArbitrary, { minLength: 1, maxLength: 40 }), (overrides) => {
        const rows = overrides.map((entry, index) => row({ ...entry, tool_call_id: `call_${index}` }));
        insert(rows);
        written = [...written, ...rows];
        expect(stored(store.database)).toEqual(written);
      }),
      { numRuns: 60 },
    );
    store.close();
  });

  it('binds the values: a quote or SQL in a value is stored as text', () => {
    const store = openSqliteStore({ path: ':memory:' });
    const hostile = "x'); DROP TABLE audit_log; --";
    createAuditRowInsert(store.database)([row({ tool: hostile }), row({ tool: hostile, step: 2 })]);
    expect(stored(store.database).map((values) => values[columns.indexOf('tool')])).toEqual([hostile, hostile]);
    store.close();
  });
});
