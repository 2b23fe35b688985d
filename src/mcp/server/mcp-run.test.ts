import { describe, expect, it } from 'vitest';
import { isMcpRunId, mcpRunId } from './mcp-run.js';

describe('mcpRunId', () => {
  it('gives each tenant and user a run of its own that isMcpRunId recognises, and nothing else', () => {
    const alice = mcpRunId({ tenantId: 'shop', userId: 'C1001', roles: [] });
    expect(alice).toBe(mcpRunId({ tenantId: 'shop', userId: 'C1001', roles: ['approver'] }));
    expect(alice).not.toBe(mcpRunId({ tenantId: 'other-shop', userId: 'C1001', roles: [] }));
    // Whatever the ids hold, no two pairs share a run.
    expect(mcpRunId({ tenantId: 'a', userId: 'b\u0000c', roles: [] })).not.toBe(
      mcpRunId({ tenantId: 'a\u0000b', userId: 'c', roles: [] }),
    );
    expect(isMcpRunId(alice)).toBe(true);
    expect(isMcpRunId('mcp_not-a-hash')).toBe(false);
    expect(isMcpRunId('3f2c9a1b-7d4e-4c1a-9b2e-1f0a6c3d5e7b')).toBe(false);
  });
});
