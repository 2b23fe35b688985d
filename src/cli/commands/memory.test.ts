import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteBackend } from '../../store/sqlite/open-sqlite-backend.js';
import { memoryCommand } from './memory.js';

const day = 86_400_000;
const start = Date.UTC(2026, 10, 2);

function dataDirectory() {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-memory-cli-'));
  const backend = openSqliteBackend({ path: join(directory, 'arbiter.db'), now: () => start });
  const user = { source: { kind: 'user' as const, runId: 'run-1' }, trusted: true };
  const alice = { tenantId: 'shop', userId: 'C1001' };
  backend.memory.save({ ...alice, ...user, key: 'city', value: 'Beijing' });
  const city = backend.memory.save({ ...alice, ...user, key: 'city', value: 'Shanghai' }).fact;
  const phone = backend.memory.save({
    ...alice,
    ...user,
    key: 'phone',
    value: '+86 138 0000 0000',
    sensitive: true,
  }).fact;
  backend.memory.save({ ...alice, ...user, key: 'coupon', value: 'SPRING10', expiresAt: start + day });
  backend.memory.save({ tenantId: 'shop', userId: 'C1002', ...user, key: 'city', value: 'Shenzhen' });
  backend.memory.save({ tenantId: 'other-shop', userId: 'C1002', ...user, key: 'city', value: 'Xiamen' });
  backend.close();
  const run = (...args: string[]) =>
    memoryCommand({ args: [...args, '--data-dir', directory], now: () => start + 2 * day });
  return { run, city, phone };
}

describe('arbiter memory', () => {
  it('lists one person’s current facts, sensitive values redacted, expired ones left out', async () => {
    const { run } = dataDirectory();
    const listed = await run('list', '--user', 'C1001');
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout.map((entry) => entry.replace(/^fact_\S+/, 'FACT'))).toEqual([
      'FACT  2026-11-02  current     city = Shanghai  (user)',
      'FACT  2026-11-02  current     phone = [redacted]  (user)',
    ]);
    const history = await run('list', '--user', 'C1001', '--tenant', 'shop', '--history', '--json');
    expect(history.stdout.map((entry) => JSON.parse(entry).status)).toEqual([
      'superseded',
      'current',
      'current',
      'expired',
    ]);
  });

  it('exports every version as JSON lines with sensitive values redacted unless --no-redact', async () => {
    const { run } = dataDirectory();
    const exported = await run('export', '--user', 'C1001', '--tenant', 'shop');
    expect(exported.stdout).toHaveLength(4);
    expect(exported.stdout.join('\n')).not.toContain('+86 138');
    expect(exported.stdout.map((entry) => JSON.parse(entry).value)).toEqual([
      'Beijing',
      'Shanghai',
      '[redacted]',
      'SPRING10',
    ]);
    expect((await run('export', '--user', 'C1001', '--no-redact')).stdout.join('\n')).toContain('+86 138 0000 0000');
  });

  it('shows one fact of that person only: another person’s id is "no fact"', async () => {
    const { run, city } = dataDirectory();
    const shown = await run('show', city.factId, '--user', 'C1001');
    expect(shown.stdout).toContain('value       Shanghai');
    expect(await run('show', city.factId, '--user', 'C1002', '--tenant', 'shop')).toEqual({
      exitCode: 1,
      stdout: [],
      stderr: [`arbiter: no such fact ${city.factId} for that user`],
    });
  });

  it('asks for --tenant when the user id lives in several tenants, and for --user always', async () => {
    const { run } = dataDirectory();
    const ambiguous = await run('list', '--user', 'C1002');
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr[0]).toBe(
      'arbiter: user C1002 has facts in 2 tenants (other-shop, shop): say which with --tenant T',
    );
    expect((await run('list', '--user', 'C1002', '--tenant', 'other-shop')).stdout.join()).toContain('Xiamen');
    expect((await run('list')).exitCode).toBe(2);
    expect((await run('forget', '--user', 'C1001')).stderr[0]).toBe(
      'arbiter: memory forget needs exactly one of --key KEY, --fact FACT_ID, --all',
    );
    expect((await run('nonsense')).exitCode).toBe(2);
  });

  it('forgets a key’s every version, a fact, or everything about one person, nobody else', async () => {
    const { run, phone } = dataDirectory();
    expect((await run('forget', '--key', 'city', '--user', 'C1001')).stdout).toEqual([
      'forgot 2 fact versions of C1001 in tenant shop',
    ]);
    expect((await run('forget', '--fact', phone.factId, '--user', 'C1002', '--tenant', 'shop')).exitCode).toBe(1);
    expect((await run('forget', '--fact', phone.factId, '--user', 'C1001')).stdout).toEqual([
      'forgot 1 fact version of C1001 in tenant shop',
    ]);
    expect((await run('forget', '--all', '--user', 'C1001')).stdout).toEqual([
      'forgot 1 fact version of C1001 in tenant shop',
    ]);
    expect((await run('list', '--user', 'C1002', '--tenant', 'shop')).stdout.join()).toContain('Shenzhen');
  });

  it('purges expired facts of everyone with purge --expired', async () => {
    const { run } = dataDirectory();
    expect(await run('purge', '--expired')).toEqual({ exitCode: 0, stdout: ['purged 1 expired facts'], stderr: [] });
    expect((await run('export', '--user', 'C1001')).stdout).toHaveLength(3);
  });
});
