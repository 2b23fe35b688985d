import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const source = join(import.meta.dirname, '../..');

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the node-llama-cpp boundary', () => {
  it('loads the optional runtime in one place, by a dynamic import: the core never loads it', () => {
    const loads: string[] = [];
    for (const file of files(source)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^import\s+(type\s+)?[^;]*from\s+'node-llama-cpp'/gm)) {
        if (match[1] === undefined) loads.push(`${relative(source, file)}: static import`);
      }
      if (/import\('node-llama-cpp'\)/.test(text)) loads.push(`${relative(source, file)}: dynamic import`);
    }
    expect(loads).toEqual(['models/local/load-local-runtime.ts: dynamic import']);
  });
});
