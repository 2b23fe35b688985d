/**
 * The store a claim test's child process opens, from its command line:
 * `sqlite PATH` or `postgres URL SCHEMA`, then `--lease-ms N` (the lease the
 * child renews its claims within) and `--clock-offset-ms N` (the child's
 * clock set that far from the real one, as a skewed host's).
 */
import type { Backend } from '../../store/backend.js';
import { openPostgresBackend } from '../../store/postgres/open-postgres-backend.js';
import { openSqliteBackend } from '../../store/sqlite/open-sqlite-backend.js';

export async function openClaimChildStore(args: readonly string[]): Promise<Backend> {
  const option = (name: string): number | undefined => {
    const index = args.indexOf(name);
    return index === -1 ? undefined : Number(args[index + 1]);
  };
  const leaseMs = option('--lease-ms');
  const offset = option('--clock-offset-ms') ?? 0;
  const settings = {
    ...(leaseMs === undefined ? {} : { claimLeaseMs: leaseMs }),
    ...(offset === 0 ? {} : { now: () => Date.now() + offset }),
  };
  const [kind, location, schema] = args;
  if (kind === 'sqlite' && location !== undefined) return openSqliteBackend({ path: location, ...settings });
  if (kind === 'postgres' && location !== undefined && schema !== undefined) {
    return openPostgresBackend({ connectionString: location, schema, ...settings });
  }
  throw new Error('usage: (sqlite PATH | postgres URL SCHEMA) [--lease-ms N] [--clock-offset-ms N]');
}
