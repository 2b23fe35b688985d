// After tsc: make the CLI entry executable, and copy what tsc does not: the chat page's static files, and
// the shop example's evaluation suite (`arbiter eval`'s default, beside the example in dist/).
// Usage: node scripts/postbuild.mjs [OUT_DIR] (default dist/, the build's outDir; the package test builds elsewhere).
import { chmodSync, cpSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = resolve(process.argv[2] ?? join(root, 'dist'));

const entry = join(outDir, 'src/cli/main.js');
if (existsSync(entry)) chmodSync(entry, 0o755);
cpSync(join(root, 'src/server/page/'), join(outDir, 'src/server/page/'), { recursive: true });
cpSync(join(root, 'evals/shop/'), join(outDir, 'evals/shop/'), { recursive: true });
cpSync(join(root, 'evals/routing/'), join(outDir, 'evals/routing/'), { recursive: true });
