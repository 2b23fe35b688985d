import { describe, expect, it } from 'vitest';
import { jsonTextDepth, nestingDepth } from './nesting-depth.js';
import { parseToolArguments } from './parse-tool-arguments.js';

const schema = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } as const;

function deepText(levels: number): string {
  return `{"order_id":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
}

function deepValue(levels: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return { order_id: value };
}

describe('nestingDepth and jsonTextDepth', () => {
  it('count arrays and objects, not brackets inside strings', () => {
    expect(nestingDepth({ a: [{ b: 1 }] }, 64)).toBe(3);
    expect(nestingDepth('text', 64)).toBe(0);
    expect(jsonTextDepth('{"a":[{"b":"]]]{{{"}]}', 64)).toBe(3);
    expect(jsonTextDepth('{"a":"\\"{{{"}', 64)).toBe(1);
  });

  it('give up past the limit without recursion, however deep the value', () => {
    expect(nestingDepth(deepValue(100_000), 64)).toBe(65);
    expect(jsonTextDepth(deepText(100_000), 64)).toBe(65);
  });
});

describe('parseToolArguments on deeply nested arguments', () => {
  it('refuses 5,000 levels, as text or as an object, with a validation message in en and zh-CN', () => {
    for (const raw of [deepText(5000), deepValue(5000)]) {
      const parsed = parseToolArguments({ toolName: 'query_order', raw: raw as string, schema });
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.issue.code).toBe('too_deep');
      expect(parsed.issue.message).toContain('nested more than 64 levels deep');
    }
    const chinese = parseToolArguments({ toolName: 'query_order', raw: deepText(5000), schema, locale: 'zh-CN' });
    expect(chinese.ok ? '' : chinese.issue.message).toContain('参数嵌套超过 64 层');
  });

  it('accepts arguments nested within the limit', () => {
    expect(parseToolArguments({ toolName: 'query_order', raw: deepText(10), schema }).ok).toBe(true);
  });

  it('refuses one level past the limit and accepts the limit itself, short text unscanned', () => {
    // deepText(n) nests n + 1 levels, its outer object included.
    const at = (levels: number) => parseToolArguments({ toolName: 'query_order', raw: deepText(levels), schema });
    expect(at(63).ok).toBe(true);
    expect(at(64)).toMatchObject({ ok: false, issue: { code: 'too_deep' } });
    expect(jsonTextDepth('['.repeat(64), 64)).toBe(64);
  });
});
