import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
/** An import or re-export (`type` in group 1 when it is erased at run time) or a dynamic import, and its specifier. */
const importPattern =
  /\b(?:import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s*)?(['"])([^'"]+)\2|\bimport\s*\(\s*(['"])([^'"]+)\4/g;

/**
 * The packages (bare specifiers; `node:` built-ins left out) an entry
 * point's source reaches through relative imports: with `types`, type-only
 * imports too (what its declaration files need), else only what runs.
 */
function packagesReachedFrom(entry: string, { types }: { types: boolean }): Set<string> {
  const packages = new Set<string>();
  const visited = new Set<string>();
  const visit = (file: string): void => {
    if (visited.has(file)) return;
    visited.add(file);
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(importPattern)) {
      if (match[1] !== undefined && !types) continue;
      const specifier = (match[3] ?? match[5]) as string;
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
      else if (!specifier.startsWith('node:')) {
        const parts = specifier.split('/');
        packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
      }
    }
  };
  visit(path.join(root, 'src', entry));
  return packages;
}

describe('the packages each entry point reaches', () => {
  it('keeps pg out of every entry but the PostgreSQL one, types included', () => {
    for (const entry of [
      'index.ts',
      'sqlite.ts',
      'openai.ts',
      'server.ts',
      'evaluation.ts',
      'observe.ts',
      'testing.ts',
      'ai-sdk.ts',
    ]) {
      expect({ entry, pg: packagesReachedFrom(entry, { types: true }).has('pg') }).toEqual({ entry, pg: false });
    }
  });

  it('keeps schema libraries out of every entry, types included: a Standard Schema is read through its interface', () => {
    const schemaLibraries = [
      'zod',
      'valibot',
      '@valibot/to-json-schema',
      'arktype',
      '@ark/schema',
      '@standard-schema/spec',
    ];
    for (const entry of [
      'index.ts',
      'sqlite.ts',
      'postgres.ts',
      'openai.ts',
      'server.ts',
      'mcp.ts',
      'a2a.ts',
      'evaluation.ts',
      'observe.ts',
      'testing.ts',
    ]) {
      const reached = packagesReachedFrom(entry, { types: true });
      expect({ entry, reached: schemaLibraries.filter((name) => reached.has(name)) }).toEqual({ entry, reached: [] });
    }
  });

  it('loads pg and no other package from the PostgreSQL entry (no SQLite binary with it)', () => {
    expect(packagesReachedFrom('postgres.ts', { types: false })).toEqual(new Set(['pg']));
    expect(packagesReachedFrom('sqlite.ts', { types: false })).toEqual(new Set(['better-sqlite3']));
  });

  it('keeps the AI SDK and OpenAI Agents out of the root entry, types included, and loads neither from their adapters', () => {
    const outsideLoops = (packages: Set<string>) =>
      [...packages].filter((name) => name === 'ai' || name.startsWith('@ai-sdk/') || name.startsWith('@openai/agents'));
    for (const entry of ['index.ts', 'server.ts', 'sqlite.ts', 'testing.ts']) {
      expect({ entry, reached: outsideLoops(packagesReachedFrom(entry, { types: true })) }).toEqual({
        entry,
        reached: [],
      });
    }
    // The adapters build the SDKs' shapes themselves: installing either SDK is the application's choice.
    expect(outsideLoops(packagesReachedFrom('ai-sdk.ts', { types: true }))).toEqual([]);
    expect(outsideLoops(packagesReachedFrom('openai-agents.ts', { types: false }))).toEqual([]);
    expect(outsideLoops(packagesReachedFrom('openai-agents.ts', { types: true }))).toEqual(['@openai/agents']);
  });

  it('never reaches ai or an @ai-sdk package from any entry, types included: they are optional peers the application imports', () => {
    const entries = ['index.ts', 'sqlite.ts', 'postgres.ts', 'openai.ts', 'server.ts', 'evaluation.ts', 'observe.ts'];
    for (const entry of [...entries, 'testing.ts', 'ai-sdk.ts']) {
      const reached = [...packagesReachedFrom(entry, { types: true })].filter(
        (name) =>
          name === 'ai' || name.startsWith('@ai-sdk/') || /^(ai\d|provider-v4|anthropic-v4|google-v4)$/.test(name),
      );
      expect({ entry, reached }).toEqual({ entry, reached: [] });
    }
  });

  it('loads no package from the AI SDK entry but openai (its strict-schema conversion), a dependency of arbiter', () => {
    expect(packagesReachedFrom('ai-sdk.ts', { types: false })).toEqual(new Set(['openai']));
  });

  it('keeps the durable engines out of every other entry, types included, and loads each only from its own', () => {
    const engines = (packages: Set<string>) =>
      [...packages].filter(
        (name) => name.startsWith('@dbos-inc/') || name.startsWith('@restatedev/') || name.startsWith('@temporalio/'),
      );
    for (const entry of ['index.ts', 'sqlite.ts', 'postgres.ts', 'openai.ts', 'server.ts', 'testing.ts', 'ai-sdk.ts']) {
      expect({ entry, reached: engines(packagesReachedFrom(entry, { types: true })) }).toEqual({ entry, reached: [] });
    }
    expect(engines(packagesReachedFrom('dbos.ts', { types: true }))).toEqual(['@dbos-inc/dbos-sdk']);
    expect(engines(packagesReachedFrom('restate.ts', { types: true })).sort()).toEqual([
      '@restatedev/restate-sdk',
      '@restatedev/restate-sdk-clients',
    ]);
  });
});
