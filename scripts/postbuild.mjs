// The CLI entry must be executable when installed as a bin.
import { chmodSync, existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (existsSync(entry)) chmodSync(entry, 0o755);
