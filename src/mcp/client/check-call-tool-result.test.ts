import { describe, expect, it } from 'vitest';
import { checkCallToolResult } from './check-call-tool-result.js';

describe('checkCallToolResult', () => {
  it('passes a well-formed result through as it came', () => {
    const result = {
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a', text: 'a' } },
        { type: 'resource', resource: { uri: 'file:///b', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
      structuredContent: { count: 1 },
      isError: false,
      _meta: { anything: true },
    };
    const checked = checkCallToolResult(result);
    expect(checked).toEqual({ ok: true, result });
    expect(checked.ok && checked.result).toBe(result);
  });

  it('gives a result without content an empty one, unless it carries another result family', () => {
    expect(checkCallToolResult({ structuredContent: { a: 1 } })).toEqual({
      ok: true,
      result: { structuredContent: { a: 1 }, content: [] },
    });
    expect(checkCallToolResult({ task: { taskId: 't1' } })).toEqual({
      ok: false,
      problem: 'the result has no content and carries "task"',
    });
  });

  it('lets a block of an unknown type through (the client summarises it)', () => {
    expect(checkCallToolResult({ content: [{ type: 'hologram', beam: 3 }] }).ok).toBe(true);
  });

  it.each([
    [null, 'the result is not an object'],
    [[], 'the result is not an object'],
    ['text', 'the result is not an object'],
    [{ content: 'hi' }, 'content is not an array'],
    [{ content: [null] }, 'content[0] is not an object'],
    [{ content: [{ text: 'hi' }] }, 'content[0].type is not a string'],
    [
      {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 7 },
        ],
      },
      'content[1].text is not a string',
    ],
    [{ content: [{ type: 'image', data: 'AAAA' }] }, 'content[0].mimeType is not a string'],
    [{ content: [{ type: 'audio', mimeType: 'audio/wav' }] }, 'content[0].data is not a string'],
    [{ content: [{ type: 'resource', resource: 'file:///a' }] }, 'content[0].resource is not an object'],
    [{ content: [{ type: 'resource', resource: { text: 'a' } }] }, 'content[0].resource.uri is not a string'],
    [
      { content: [{ type: 'resource', resource: { uri: 'file:///a' } }] },
      'content[0].resource has neither a string text nor a string blob',
    ],
    [{ content: [{ type: 'resource_link', uri: 'file:///a' }] }, 'content[0].name is not a string'],
    [{ content: [], structuredContent: [1, 2] }, 'structuredContent is not an object'],
    [{ content: [], isError: 'yes' }, 'isError is not a boolean'],
  ])('refuses %j: %s', (value, problem) => {
    expect(checkCallToolResult(value)).toEqual({ ok: false, problem });
  });
});
