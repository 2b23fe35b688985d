import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The package's entry points by name, on their sources: the example imports
 * `@arbiter-runtime/core` as a user's code does (tsconfig `paths` for the
 * compiler, these aliases for vitest, the package's own `exports` for the
 * built `dist/`).
 */
const entries = [
  'sqlite',
  'postgres',
  'openai',
  'server',
  'evaluation',
  'observe',
  'testing',
  'ai-sdk',
  'openai-agents',
].map((name) => ({
  find: `@arbiter-runtime/core/${name}`,
  replacement: fileURLToPath(new URL(`./src/${name}.ts`, import.meta.url)),
}));

/** Test files that time processes: run alone (see `projects`). */
const timed = [
  'test/cluster/**/*.test.ts',
  'test/crash/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/engines/**/*.test.ts',
];

export default defineConfig({
  resolve: {
    alias: [
      ...entries,
      { find: /^@arbiter-runtime\/core$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // A green run prints only vitest's own lines: what a passing test logs (measurements, the folder graph, tables)
    // is shown for a failing one only; `npx vitest run --silent=false FILES` shows it all.
    silent: 'passed-only',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        // Most files wait on child processes, sockets and databases more than on the CPU: two at a time.
        extends: true,
        test: {
          name: 'main',
          include: ['src/**/*.test.ts', 'examples/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: timed,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Kills, restarts, several server nodes and a browser, whose timing a neighbour could disturb: one at a
        // time, after the rest.
        extends: true,
        test: { name: 'timed', include: timed, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
