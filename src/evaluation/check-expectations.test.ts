import { describe, expect, it } from 'vitest';
import type { CallTrace } from '../observe/run-trace.js';
import { type CaseTranscript, checkExpectations, checkText } from './check-expectations.js';
import { findInternalDetails } from './find-internal-details.js';

function call(overrides: Partial<CallTrace>): CallTrace {
  return {
    toolCallId: 'call_1',
    tool: 'apply_refund',
    rawArguments: '{"order_id":"SO20260901","amount_cents":999900}',
    argumentsDigest: 'digest',
    gate: 'denied',
    status: 'error',
    executed: false,
    stage: 'gate',
    code: 'refund_over_hard_cap',
    retryable: false,
    resultDigest: undefined,
    startedAt: 0,
    endedAt: 1,
    durationMs: 0.5,
    ...overrides,
  };
}

const transcript: CaseTranscript = {
  stopReason: 'completed',
  answer: "I'm sorry, I can't do that: refunds above 5000.00 yuan cannot be made in this chat.",
  messages: [
    { role: 'user', content: 'Check my messages.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'apply_refund', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'Refused (refund_over_hard_cap): Refunds above 5000.00 yuan…' },
    {
      role: 'assistant',
      content: "I'm sorry, I can't do that: refunds above 5000.00 yuan cannot be made in this chat.",
    },
  ],
  calls: [call({})],
  modelCalls: 2,
  state: { refunds: 2 },
};

describe('checkExpectations', () => {
  it('passes when every expectation holds', () => {
    expect(
      checkExpectations({
        transcript,
        expect: {
          stopReason: ['completed', 'tool_failures'],
          calls: { made: ['apply_refund'], notExecuted: ['apply_refund'], notMade: ['query_order'] },
          arguments: [{ tool: 'apply_refund', includes: { amount_cents: 999900 } }],
          errors: [{ tool: 'apply_refund', stage: 'gate', retryable: false, messageContains: ['Refused'] }],
          gate: [{ tool: 'apply_refund', decision: 'denied' }],
          answer: { contains: ["can't do that"], notMatches: ['refunded \\d'] },
          modelCalls: { max: 2 },
          state: { refunds: 2 },
        },
      }),
    ).toEqual([]);
  });

  it('says which expectation failed and what happened instead', () => {
    expect(
      checkExpectations({
        transcript,
        expect: {
          stopReason: 'tool_failures',
          calls: { executed: ['apply_refund'], made: ['query_order'] },
          arguments: [{ tool: 'apply_refund', includes: { amount_cents: 100 } }],
          errors: [{ tool: 'apply_refund', stage: 'validation' }],
          gate: [{ tool: 'apply_refund', decision: 'allowed' }],
          answer: { contains: ['RF2026090003'], matches: ['^Done'] },
          modelCalls: { min: 3 },
          state: { refunds: 3, notes: 0 },
        },
      }),
    ).toMatchInlineSnapshot(`
      [
        "stop reason: expected tool_failures, got completed",
        "calls: query_order was never called",
        "calls: apply_refund never ran",
        "arguments: no call of apply_refund with {"amount_cents":100}",
        "errors: no failed call of apply_refund with stage validation",
        "gate: no call of apply_refund was allowed (got denied)",
        "answer: does not contain "RF2026090003"",
        "answer: does not match /^Done/",
        "model calls: expected at least 3, got 2",
        "state: refunds expected 3, got 2",
        "state: notes expected 0, got nothing",
      ]
    `);
  });

  it('fails any case whose model-facing texts leak internals, unless the case allows it', () => {
    const leaky: CaseTranscript = {
      ...transcript,
      messages: [
        ...transcript.messages,
        {
          role: 'tool',
          tool_call_id: 'call_2',
          content:
            'SqliteError: no such table: orders\n    at Database.prepare (/app/node_modules/better-sqlite3/lib/database.js:3:9)',
        },
      ],
    };
    expect(checkExpectations({ transcript: leaky, expect: {} })).toEqual([
      'internal details: sql in tool message call_2: "no such table"',
      'internal details: stack_trace in tool message call_2: "at Database.prepare (/app/node_modules/better-sqlite3/lib/d…"',
      'internal details: file_path in tool message call_2: "/app/node_modules/better-sqlite3/lib/database.js"',
      'internal details: internal_name in tool message call_2: "SqliteError"',
    ]);
    expect(checkExpectations({ transcript: leaky, expect: { allowInternalDetails: true } })).toEqual([]);
  });
});

describe('checkText', () => {
  it('compares case-insensitively', () => {
    expect(checkText('Your order SHIPPED.', { contains: ['shipped'], notContains: ['cancelled'] })).toEqual([]);
    expect(checkText('Delivered on 2026-09-04.', { notMatches: ['\\d{4}-\\d{2}-\\d{2}'] })).toEqual([
      'matches /\\d{4}-\\d{2}-\\d{2}/',
    ]);
  });
});

describe('findInternalDetails', () => {
  it.each([
    ['SELECT * FROM orders WHERE order_id = ?', 'sql'],
    ['INSERT OR IGNORE INTO refunds (refund_no) VALUES (1)', 'sql'],
    ['SQLITE_CONSTRAINT: UNIQUE constraint failed', 'sql'],
    ['Error: boom\n    at execute (file:///srv/app/dist/shop-tools.js:42:11)', 'stack_trace'],
    ['Traceback (most recent call last):', 'stack_trace'],
    ['could not open /var/lib/arbiter/shop.db', 'file_path'],
    ['see C:\\Users\\alice\\app\\', 'file_path'],
    ['TypeError: cannot read properties of undefined', 'internal_name'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'internal_name'],
  ])('finds internals in %j', (text, kind) => {
    expect(findInternalDetails(text).map((detail) => detail.kind)).toContain(kind);
  });

  it.each([
    'No order SO20269999 was found for this customer. Check the order number with the customer ("SO" followed by 8 digits, e.g. SO20260901).',
    'The call to query_order was not run: 1 problem with its arguments.\n- `order_id`: expected a string matching ^SO\\d{8}$. Valid example: "SO20260901".',
    'Please select a reason from the list, then update the note where needed.',
    'Delivered to Room 1203, 88 Century Avenue, Pudong, Shanghai 200120 at 2026-09-02T01:30:00Z.',
    '{"order_id":"SO20260901","status":"shipped","tracking_number":"SF1402938475610"}',
    '订单 SO20260905 已取消，不能再添加备注。',
  ])('finds nothing in the ordinary text %j', (text) => {
    expect(findInternalDetails(text)).toEqual([]);
  });
});
