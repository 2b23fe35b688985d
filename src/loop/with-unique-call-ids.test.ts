import { describe, expect, it } from 'vitest';
import { calls } from './test-support/sequence-model.js';
import { withUniqueCallIds } from './with-unique-call-ids.js';

describe('withUniqueCallIds', () => {
  it('keeps new ids and renames an id the conversation already has', () => {
    const first = calls(['query_order', {}]);
    const id = first.tool_calls?.[0]?.id ?? '';
    const seen = new Set<string>();
    expect(withUniqueCallIds(first, seen)).toBe(first);
    const renamed = withUniqueCallIds(first, seen).tool_calls?.[0]?.id;
    expect(renamed).not.toBe(id);
    expect(renamed?.startsWith(`${id}_`)).toBe(true);
    expect(seen.size).toBe(2);
  });
});
