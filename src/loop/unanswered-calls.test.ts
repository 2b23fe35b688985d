import { describe, expect, it } from 'vitest';
import { calls } from './test-support/sequence-model.js';
import { unansweredCalls } from './unanswered-calls.js';

describe('unansweredCalls', () => {
  it('returns the calls of the last assistant message that have no answer yet', () => {
    const turn = calls(['query_order', {}], ['track_shipment', {}]);
    const [first, second] = turn.tool_calls ?? [];
    expect(unansweredCalls([turn, { role: 'tool', tool_call_id: first?.id ?? '', content: '{}' }])).toEqual([second]);
    expect(unansweredCalls([turn, { role: 'assistant', content: 'Done.' }])).toEqual([]);
  });
});
