import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * How a person runs this CLI again from where they are, for the commands
 * it prints (the demo's "decide later", "to take it back"): `npm run
 * arbiter --` in this package's own checkout (its root, with the sources),
 * `npx arbiter` anywhere else, such as a project that installed the package.
 *
 * @example
 * `${cliInvocation()} approve ${approvalId}`; // 'npx arbiter approve ap_…' in a project
 */
export function cliInvocation({ cwd = process.cwd() }: { cwd?: string } = {}): string {
  // src/cli/ from the sources, dist/src/cli/ once built: the package root is two or three folders up.
  for (const relative of ['../../', '../../../']) {
    const root = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${root}src/cli/main.ts`) && existsSync(`${root}package.json`) && sameFolder(root, cwd)) {
      return 'npm run arbiter --';
    }
  }
  return 'npx arbiter';
}

function sameFolder(left: string, right: string): boolean {
  try {
    return realpathSync(left) === realpathSync(right);
  } catch {
    return false;
  }
}
