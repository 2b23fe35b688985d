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
  it('never imports the optional runtime by name, not even its types: arbiter builds without it', () => {
    const imports: string[] = [];
    for (const file of files(source)) {
      const text = readFileSync(file, 'utf8');
      if (/from\s+'node-llama-cpp'|import\(\s*'node-llama-cpp'\s*\)/.test(text)) imports.push(relative(source, file));
    }
    expect(imports).toEqual([]);
  });

  it('loads it in one place only, by a dynamic import of a specifier held in a variable', () => {
    const naming = files(source).filter((file) => readFileSync(file, 'utf8').includes("'node-llama-cpp'"));
    expect(naming.map((file) => relative(source, file))).toEqual(['models/local/load-local-runtime.ts']);
    expect(readFileSync(join(source, 'models/local/load-local-runtime.ts'), 'utf8')).toMatch(
      /await import\(specifier\)/,
    );
  });
});
