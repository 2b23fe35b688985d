// After tsc: make the CLI entry executable, and copy what tsc does not (the chat page's static files).
import { chmodSync, cpSync, existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(entry)) chmodSync(entry, 0o755);
cpSync(new URL('../src/server/page/', import.meta.url), new URL('../dist/src/server/page/', import.meta.url), {
  recursive: true,
});
