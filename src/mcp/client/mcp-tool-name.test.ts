import { describe, expect, it } from 'vitest';
import { mcpToolName } from './mcp-tool-name.js';

describe('mcpToolName', () => {
  it('prefixes the server and keeps a valid name as it is', () => {
    expect(mcpToolName({ server: 'files', tool: 'read_text_file', taken: new Set() })).toBe('files_read_text_file');
  });

  it('makes names valid for model APIs, and never gives two tools one name', () => {
    const first = mcpToolName({ server: 'ev', tool: 'get.sum', taken: new Set() });
    expect(first).toBe('ev_get_sum');
    const second = mcpToolName({ server: 'ev', tool: 'get sum', taken: new Set([first]) });
    expect(second).toMatch(/^ev_get_sum_[0-9a-f]{8}$/);
    // The same tool always gets the same name.
    expect(mcpToolName({ server: 'ev', tool: 'get sum', taken: new Set([first]) })).toBe(second);
    // A native tool's name is never taken over.
    expect(mcpToolName({ server: 'shop', tool: 'query_order', taken: new Set(['shop_query_order']) })).not.toBe(
      'shop_query_order',
    );
  });

  it('cuts long names to 64 characters, ending in a hash that tells them apart', () => {
    const long = (suffix: string) =>
      mcpToolName({ server: 'crm', tool: `${'x'.repeat(80)}${suffix}`, taken: new Set() });
    expect(long('a')).toHaveLength(64);
    expect(long('a')).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(long('a')).not.toBe(long('b'));
  });
});
