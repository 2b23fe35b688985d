import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** What `npm pack` made. */
export interface PackedPackage {
  /** Absolute path of the `.tgz`. */
  readonly tarball: string;
  readonly name: string;
  readonly files: readonly string[];
}

/**
 * Builds the package the way `npm run build` does, but into a directory of
 * its own (tests running beside this one read the checkout's `dist/`), and
 * packs it with `npm pack`: the same `files`, `exports` and `bin` a
 * publisher's tarball has. Throws with the compiler's output when the build
 * fails.
 *
 * @example
 * const { tarball } = packPackage({ root: process.cwd(), into: temporaryDirectory });
 */
export function packPackage({ root, into }: { root: string; into: string }): PackedPackage {
  const stage = join(into, 'stage');
  mkdirSync(stage, { recursive: true });
  const run = (command: string, args: readonly string[], cwd: string): string => {
    try {
      return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`, { cause: error });
    }
  };
  const typescript = join(root, 'node_modules/typescript/bin/tsc');
  run(process.execPath, [typescript, '-p', 'tsconfig.build.json', '--outDir', join(stage, 'dist')], root);
  run(process.execPath, [join(root, 'scripts/postbuild.mjs'), join(stage, 'dist')], root);
  for (const file of ['package.json', 'README.md', 'LICENSE']) {
    if (existsSync(join(root, file))) copyFileSync(join(root, file), join(stage, file));
  }
  // The build already ran; `prepare` would build again from sources the stage does not have.
  const output = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], stage);
  const [packed] = JSON.parse(output) as { name: string; filename: string; files: { path: string }[] }[];
  if (packed === undefined) throw new Error(`npm pack reported nothing:\n${output}`);
  return { tarball: join(into, packed.filename), name: packed.name, files: packed.files.map((file) => file.path) };
}
