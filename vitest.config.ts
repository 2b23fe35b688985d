import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The package's entry points by name, on their sources: the example imports
 * `@arbiter-runtime/core` as a user's code does (tsconfig `paths` for the
 * compiler, these aliases for vitest, the package's own `exports` for the
 * built `dist/`).
 */
const entries = ['sqlite', 'postgres', 'openai', 'server', 'evaluation', 'observe', 'testing'].map((name) => ({
  find: `@arbiter-runtime/core/${name}`,
  replacement: fileURLToPath(new URL(`./src/${name}.ts`, import.meta.url)),
}));

export default defineConfig({
  resolve: {
    alias: [
      ...entries,
      { find: /^@arbiter-runtime\/core$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'examples/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
