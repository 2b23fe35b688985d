import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where `initdb` and `pg_ctl` were found. */
export interface PostgresBinaries {
  readonly directory: string;
  readonly initdb: string;
  readonly pgCtl: string;
}

/** A throwaway cluster: its own directory, port and socket, trust authentication, fsync off. */
export interface PostgresCluster {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres`. */
  readonly connectionString: string;
  readonly port: number;
  /** The temporary directory holding the data directory, the socket and the server log. */
  readonly directory: string;
  /**
   * Restarts the server as an operator would (`pg_ctl restart -m fast`):
   * every connection is terminated (57P01), new ones are refused until it is
   * back; resolves once it accepts connections again on the same port.
   */
  restart(): Promise<void>;
  /** Stops the server (`pg_ctl stop -m immediate`) and removes the directory. */
  stop(): Promise<void>;
}

/**
 * Finds PostgreSQL's server binaries: `ARBITER_POSTGRES_BINDIR`, then
 * `pg_config --bindir`, then `/usr/lib/postgresql/<version>/bin` (newest
 * first), then what `dpkg -L postgresql-15` lists. Undefined when none has
 * both `initdb` and `pg_ctl`.
 *
 * @example
 * const binaries = findPostgresBinaries();
 * if (binaries === undefined) console.log('no PostgreSQL here');
 */
export function findPostgresBinaries(): PostgresBinaries | undefined {
  const candidates: string[] = [];
  const fromEnvironment = process.env['ARBITER_POSTGRES_BINDIR'];
  if (fromEnvironment !== undefined && fromEnvironment !== '') candidates.push(fromEnvironment);
  const fromPgConfig = quietly(() => execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  if (fromPgConfig !== undefined) candidates.push(fromPgConfig);
  const debianRoot = '/usr/lib/postgresql';
  const versions = quietly(() => readdirSync(debianRoot)) ?? [];
  for (const version of versions.sort((left, right) => Number(right) - Number(left))) {
    candidates.push(join(debianRoot, version, 'bin'));
  }
  const listed = quietly(() => execFileSync('dpkg', ['-L', 'postgresql-15'], { encoding: 'utf8' })) ?? '';
  for (const line of listed.split('\n'))
    if (line.endsWith('/bin/initdb')) candidates.push(line.slice(0, -'/initdb'.length));
  for (const directory of candidates) {
    const initdb = join(directory, 'initdb');
    const pgCtl = join(directory, 'pg_ctl');
    if (existsSync(initdb) && existsSync(pgCtl)) return { directory, initdb, pgCtl };
  }
  return undefined;
}

/**
 * Starts a throwaway PostgreSQL cluster in a new temporary directory: on
 * 127.0.0.1 and a free port, its socket in that directory, trust
 * authentication, `fsync`, `synchronous_commit` and `full_page_writes` off
 * (a test cluster is thrown away, not recovered). As root, `initdb` and
 * `pg_ctl` run as the unprivileged `postgres` user (`runuser`), since
 * PostgreSQL refuses to run as root; as any other user they run directly.
 *
 * @example
 * const cluster = await startPostgresCluster({ binaries: findPostgresBinaries()! });
 * const backend = await openPostgresBackend({ connectionString: cluster.connectionString, schema: 'test_1' });
 * await cluster.stop();
 */
export async function startPostgresCluster({
  binaries,
  settings = [],
}: {
  binaries: PostgresBinaries;
  /** More `postgresql.conf` lines (e.g. `shared_preload_libraries = 'pg_stat_statements'`). */
  settings?: readonly string[];
}): Promise<PostgresCluster> {
  const owner = clusterOwner();
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-pg-'));
  const data = join(directory, 'data');
  const socket = join(directory, 'socket');
  const log = join(directory, 'server.log');
  mkdirSync(socket);
  if (owner !== undefined) {
    for (const path of [directory, socket]) chownSync(path, owner.uid, owner.gid);
  }
  const asOwner = (command: string, args: readonly string[]) =>
    owner === undefined
      ? run(command, [...args], { cwd: directory })
      : run('runuser', ['-u', owner.name, '--', command, ...args], { cwd: directory });
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
    quietly(() =>
      owner === undefined
        ? execFileSync(binaries.pgCtl, args, { cwd: directory, stdio: 'ignore' })
        : execFileSync('runuser', ['-u', owner.name, '--', binaries.pgCtl, ...args], {
            cwd: directory,
            stdio: 'ignore',
          }),
    );
    rmSync(directory, { recursive: true, force: true });
  };
  // A worker that exits without its afterAll still leaves no server behind.
  process.once('exit', stopNow);
  try {
    await asOwner(binaries.initdb, [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${socket}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 200',
        ...settings,
        '',
      ].join('\n'),
    );
    let port = 0;
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      try {
        await asOwner(binaries.pgCtl, ['-D', data, '-l', log, '-o', `-p ${port}`, '-w', '-t', '60', 'start']);
        break;
      } catch (error) {
        // Another process may have taken the port between the probe and the start.
        if (attempt >= 3) throw new Error(`PostgreSQL did not start:\n${readLog(log)}`, { cause: error });
      }
    }
    return {
      connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      port,
      directory,
      restart: async () => {
        await asOwner(binaries.pgCtl, [
          '-D',
          data,
          '-l',
          log,
          '-o',
          `-p ${port}`,
          '-m',
          'fast',
          '-w',
          '-t',
          '60',
          'restart',
        ]);
      },
      stop: async () => {
        process.removeListener('exit', stopNow);
        stopNow();
      },
    };
  } catch (error) {
    process.removeListener('exit', stopNow);
    stopNow();
    throw error;
  }
}

/** The unprivileged user that runs the cluster when this process is root; undefined otherwise. */
function clusterOwner(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const name = 'postgres';
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { name, uid, gid };
  } catch (error) {
    throw new Error(
      `running as root, and there is no "${name}" user to run PostgreSQL as (it refuses to run as root)`,
      { cause: error },
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function readLog(path: string): string {
  return quietly(() => readFileSync(path, 'utf8')) ?? '(no server log)';
}

function quietly<Value>(read: () => Value): Value | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
