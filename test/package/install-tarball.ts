import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

interface LockEntry {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

/**
 * Installs a packed tarball into a consumer project the way `npm install
 * ./package.tgz` lays it out, offline and in a second: the tarball is
 * unpacked into `node_modules/NAME`, its `bin` entries linked into
 * `node_modules/.bin`, and the packages its `dependencies` need (and the
 * consumer's own `devDependencies`) linked from the checkout's
 * `node_modules`. Only what the tarball's `package.json` declares (and what
 * that needs in turn, as `package-lock.json` resolved it) is linked, so a
 * package the published code or types use without declaring it is missing
 * here as it would be for a user.
 *
 * @example
 * installTarball({ tarball, name: '@arbiter-runtime/core', consumer, checkout: process.cwd(), devDependencies: ['@types/node'] });
 */
export function installTarball({
  tarball,
  name,
  consumer,
  checkout,
  devDependencies = [],
}: {
  tarball: string;
  name: string;
  consumer: string;
  checkout: string;
  devDependencies?: readonly string[];
}): void {
  const target = join(consumer, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '--strip-components=1', '-C', target]);
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
  };

  const lock = JSON.parse(readFileSync(join(checkout, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const linked = new Set<string>();
  const visited = new Set<string>();
  // Node's lookup: the nearest node_modules/NAME from the requiring package up to the root.
  const resolve = (dependency: string, from: string): string | undefined => {
    for (let at = from; ; at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '') {
      const candidate = at === '' ? `node_modules/${dependency}` : `${at}/node_modules/${dependency}`;
      if (lock.packages[candidate] !== undefined) return candidate;
      if (at === '') return undefined;
    }
  };
  const visit = (dependency: string, from: string, optional: boolean): void => {
    const path = resolve(dependency, from);
    if (path === undefined) {
      if (optional) return;
      throw new Error(`${dependency} (needed by ${from || 'the consumer'}) is not in the checkout's package-lock.json`);
    }
    if (visited.has(path)) return;
    visited.add(path);
    const topLevel = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (topLevel !== undefined) linked.add(topLevel);
    const entry = lock.packages[path] ?? {};
    for (const next of Object.keys(entry.dependencies ?? {})) visit(next, path, false);
    for (const next of Object.keys({ ...entry.optionalDependencies, ...entry.peerDependencies })) {
      visit(next, path, true);
    }
  };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency, '', false);
  for (const dependency of devDependencies) visit(dependency, '', false);

  for (const dependency of linked) {
    const link = join(consumer, 'node_modules', dependency);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(checkout, 'node_modules', dependency), link, 'dir');
  }
  const bin = join(consumer, 'node_modules/.bin');
  mkdirSync(bin, { recursive: true });
  for (const [command, file] of Object.entries(manifest.bin ?? {})) {
    chmodSync(join(target, file), 0o755);
    symlinkSync(relative(bin, join(target, file)), join(bin, command));
  }
  // The consumer's own tools get their commands too, as npm links them (`npx tsc`).
  for (const dependency of devDependencies) {
    const installed = join(consumer, 'node_modules', dependency);
    const { bin: commands } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      bin?: string | Record<string, string>;
    };
    const entries =
      typeof commands === 'string'
        ? [[dependency.split('/').at(-1) ?? dependency, commands]]
        : Object.entries(commands ?? {});
    for (const [command, file] of entries) {
      if (command !== undefined && file !== undefined)
        symlinkSync(relative(bin, join(installed, file)), join(bin, command));
    }
  }
  writeFileSync(
    join(consumer, 'package.json'),
    `${JSON.stringify(
      {
        name: 'arbiter-consumer',
        private: true,
        type: 'module',
        dependencies: { [name]: `file:${relative(consumer, tarball)}` },
        devDependencies: Object.fromEntries(devDependencies.map((dependency) => [dependency, '*'])),
      },
      null,
      2,
    )}\n`,
  );
}
