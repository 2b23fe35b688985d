import { afterEach, describe, expect, it } from 'vitest';
import { untrustedSource } from '../../tools/untrusted-source.js';
import { McpServerMount } from './mcp-server-mount.js';
import { fixtureServer } from './test-support/mcp-harness.js';

describe('MCP tools as sources of untrusted content', () => {
  const mounts: McpServerMount[] = [];
  afterEach(async () => {
    for (const mount of mounts.splice(0)) await mount.close();
  });

  it('marks every tool of a server not marked trusted, and none of a trusted one', async () => {
    for (const trusted of [false, true]) {
      const mount = await McpServerMount.open({
        server: { name: 'fx', command: process.execPath, args: [fixtureServer], ...(trusted ? { trusted } : {}) },
      });
      mounts.push(mount);
      const sources = mount.definitions.map((definition) => untrustedSource({ definition, result: {} }));
      expect(sources.length).toBeGreaterThan(0);
      expect(new Set(sources)).toEqual(new Set([trusted ? undefined : 'MCP server fx']));
    }
  });
});
