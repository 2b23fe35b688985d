import { describe, expect, it } from 'vitest';
import { parseMcpConfig } from '../src/mcp/client/mcp-server-config.js';
import { readmeSnippets } from './package/readme-snippets.js';

describe('MCP config files', () => {
  it('reads the README example, expanding environment variables, with per-user credentials by tenant/user', () => {
    // The first JSON block of "MCP" is an MCP client's config for `arbiter mcp serve`; this one is a list.
    const example = readmeSnippets({ file: 'docs/mcp.md' }).find(
      (snippet) => snippet.language === 'json' && snippet.code.trimStart().startsWith('['),
    );
    if (example === undefined) throw new Error('docs/mcp.md has no JSON list example');
    const environment = { CRM_LIST_TOKEN: 'list-token', CRM_TOKEN_C1001: 'c1001-token' };
    const [files, crm] = parseMcpConfig({ value: JSON.parse(example.code), file: 'README', environment });
    expect(files).toMatchObject({ name: 'files', args: ['/srv/share'], tools: { read_text_file: { disabled: true } } });
    expect(crm).toMatchObject({ name: 'crm', url: 'https://crm.example.com/mcp', bearer: 'list-token' });
    expect(crm?.perPrincipal?.({ tenantId: 'shop', userId: 'C1001', roles: [] })).toEqual({ bearer: 'c1001-token' });
    // Same user id, another tenant: nothing.
    expect(crm?.perPrincipal?.({ tenantId: 'other', userId: 'C1001', roles: [] })).toBeUndefined();
  });

  it('refuses what cannot work, naming the file, the server and the setting', () => {
    const parse =
      (value: unknown, environment: Record<string, string> = {}) =>
      () =>
        parseMcpConfig({ value, file: 'mcp.json', environment });
    expect(parse({})).toThrow('mcp.json: must be a JSON array of servers');
    expect(parse([{ name: '1bad', command: 'x' }])).toThrow('server 1: "name" must be 1-24 letters');
    expect(parse([{ name: 'a', command: 'x', url: 'http://h/mcp' }])).toThrow('server "a" needs either "command"');
    expect(parse([{ name: 'a', url: 'ftp://h' }])).toThrow('server "a": "url" must be an http(s) URL');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own placeholder syntax
    expect(parse([{ name: 'a', command: 'x', bearer: '${MISSING}' }])).toThrow(
      'server "a": "bearer" names environment variable MISSING, which is not set',
    );
    expect(parse([{ name: 'a', command: 'x', tools: { t: { sideEffect: 'harmless' } } }])).toThrow(
      '"tools.t.sideEffect" must be one of read, reversible, irreversible',
    );
    expect(parse([{ name: 'a', command: 'x', perPrincipal: { C1001: { bearer: 't' } } }])).toThrow(
      '"perPrincipal" key "C1001" must be "tenantId/userId"',
    );
    expect(parse([{ name: 'a', command: 'x', protocolVersion: '2024-11-05' }])).toThrow(
      'server "a": "protocolVersion" must be "2025-11-25" or "2026-07-28"',
    );
    expect(parse([{ name: 'a', command: 'x', protocolVersion: '2026-07-28' }])()).toEqual([
      { name: 'a', command: 'x', protocolVersion: '2026-07-28' },
    ]);
    expect(parse([{ name: 'a', command: 'x', colour: 'red' }])).toThrow('server "a": unknown setting "colour"');
    expect(
      parse([
        { name: 'a', command: 'x' },
        { name: 'a', command: 'y' },
      ]),
    ).toThrow('server "a" is listed twice');
  });
});
