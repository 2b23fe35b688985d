/**
 * Issue 45, item 6 and the audit part of item 9, through the real `arbiter`
 * command (a process of its own) on SQLite and on a throwaway PostgreSQL
 * cluster: an attacker with write access drops the triggers, widens the
 * record of when the chain began (`audit_chain_origin`: one row more, a day
 * later) and slips a row without hashes under it; `audit verify` names it,
 * with and without `--anchor`. An anchor of another store is named as such.
 * `audit anchor` refuses a short key and says which folder is missing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../src/gate/audit-log.js';
import { openPostgresBackend } from '../src/store/postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../src/store/postgres/test-support/postgres-cluster.js';
import { SqliteAuditLog } from '../src/store/sqlite/sqlite-audit-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { runArbiter } from './support/run-arbiter.js';

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const key = 'an auditor key of the test, 32+ characters long';

/** The CLI with the auditor's key set. */
const arbiter = (args: readonly string[], environment: Record<string, string | undefined> = {}) =>
  runArbiter(args, { ARBITER_AUDIT_KEY: key, ...environment }, 90_000);

const entry = (toolCallId: string, tenantId: string): AuditEntry => ({
  at: Date.now(),
  sessionId: 'session-1',
  runId: 'run-1',
  step: 1,
  toolCallId,
  tool: 'apply_refund',
  sideEffect: 'irreversible',
  argumentsHash: 'hash',
  arguments: { amount_cents: 500 },
  decision: 'approved',
  rule: 'refund_cap',
  approver: 'S9001',
  outcome: 'ok',
  durationMs: 1,
  tenantId,
  userId: 'C1001',
});

const seeded = [entry('call_1', 'shop'), entry('call_2', 'shop'), entry('call_3', 'other-shop')];
const tomorrow = Date.now() + 86_400_000;
/** The attack, as the issue wrote it: the origin widened by one row and a day, a row without hashes under it. */
const widenOrigin = `UPDATE audit_chain_origin SET rows_then = rows_then + 1, started_at = ${tomorrow}`;
const forgedRow = (explicitId: string) =>
  `INSERT INTO audit_log (audit_id, at, run_id, step, tool_call_id, tool, side_effect, arguments_hash, arguments,
     decision, approver, outcome, duration_ms, tenant_id, user_id) ${explicitId}
   VALUES (0, ${Date.now()}, 'run-1', 9, 'call_forged', 'apply_refund', 'irreversible', 'hash', '{}', 'approved',
     'S9001', 'ok', 1, 'shop', 'C1001')`;

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});
function directory(): string {
  const made = mkdtempSync(join(tmpdir(), 'arbiter-audit-origin-'));
  directories.push(made);
  return made;
}

function seedSqlite(): string {
  const dataDir = directory();
  const store = openSqliteStore({ path: join(dataDir, 'arbiter.db') });
  try {
    const audit = new SqliteAuditLog({ database: store.database });
    for (const row of seeded) audit.append(row);
  } finally {
    store.close();
  }
  return dataDir;
}

function attackSqlite(dataDir: string): void {
  const store = openSqliteStore({ path: join(dataDir, 'arbiter.db') });
  try {
    store.database.exec(`
      DROP TRIGGER audit_log_refuses_update; DROP TRIGGER audit_log_refuses_delete;
      DROP TRIGGER audit_chain_origin_refuses_update; DROP TRIGGER audit_chain_origin_refuses_delete;
      ${widenOrigin};
      ${forgedRow('')};
    `);
  } finally {
    store.close();
  }
}

/** What `audit verify` must say of the attack: the row, and the origin the chains were sealed with. */
function expectAttackNamed(ran: Ran, { anchored }: { anchored: boolean }): void {
  expect(ran.code).toBe(1);
  const lines = ran.stdout.trim().split('\n');
  expect(lines).toContain(
    'row 0 (tenant shop) has no chain hash but was written after the chain began: inserted outside the audit log',
  );
  expect(lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        /^row 1 \(tenant shop\) begins chain \S+ from another origin than this store records now: its id \(audit_store\) or when its chain began \(audit_chain_origin\) was changed$/,
      ),
    ]),
  );
  if (anchored) {
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^audit_chain_origin records 1 rows up to row 0 before \S+ where the anchor of \S+ holds 0 rows up to row 0 before \S+: the record of when the chain began was changed$/,
        ),
      ]),
    );
  }
  expect(lines.find((line) => line.startsWith('audit log '))).toMatch(/^audit log tampered: \d+ findings in 4 rows/);
}

describe('arbiter audit on SQLite: the origin is covered by the chain and the anchor', () => {
  it('names a widened origin and the hashless row under it, with and without --anchor', async () => {
    const dataDir = seedSqlite();
    const anchor = join(dataDir, 'anchor.json');
    expect(await arbiter(['audit', 'anchor', '--data-dir', dataDir, '--out', anchor])).toMatchObject({ code: 0 });
    expect(await arbiter(['audit', 'verify', '--data-dir', dataDir, '--anchor', anchor])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^audit log intact: 3 rows, 2 tenants, 2 chains; 2 anchored heads checked/),
    });
    attackSqlite(dataDir);
    expectAttackNamed(await arbiter(['audit', 'verify', '--data-dir', dataDir]), { anchored: false });
    expectAttackNamed(await arbiter(['audit', 'verify', '--data-dir', dataDir, '--anchor', anchor]), {
      anchored: true,
    });
  }, 180_000);

  it('names an anchor of another store as such, not as rows deleted; refuses one whose store id was edited', async () => {
    const [first, second] = [seedSqlite(), seedSqlite()];
    const anchor = join(second, 'anchor.json');
    expect(await arbiter(['audit', 'anchor', '--data-dir', second, '--out', anchor])).toMatchObject({ code: 0 });
    const written = JSON.parse(readFileSync(anchor, 'utf8')) as { store: string };
    const foreign = await arbiter(['audit', 'verify', '--data-dir', first, '--anchor', anchor]);
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toMatch(
      new RegExp(
        `^this anchor \\(of \\S+\\) belongs to store ${written.store}, not to this store \\([0-9a-f]{32}\\): its chain heads were not checked$`,
        'm',
      ),
    );
    expect(foreign.stdout).not.toMatch(/deleted|rewritten/);
    const edited = join(second, 'edited.json');
    const firstStore = (
      JSON.parse((await arbiter(['audit', 'anchor', '--data-dir', first])).stdout) as { store: string }
    ).store;
    writeFileSync(edited, JSON.stringify({ ...written, store: firstStore }));
    expect(await arbiter(['audit', 'verify', '--data-dir', first, '--anchor', edited])).toMatchObject({
      code: 2,
      stderr: `arbiter: ${edited}: audit anchor is not signed with the configured ARBITER_AUDIT_KEY\n`,
    });
  }, 180_000);

  it('refuses to sign an anchor with a short ARBITER_AUDIT_KEY, and names the missing folder of --out', async () => {
    const dataDir = seedSqlite();
    const short = await arbiter(['audit', 'anchor', '--data-dir', dataDir], { ARBITER_AUDIT_KEY: 'abc' });
    expect(short).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'arbiter: ARBITER_AUDIT_KEY is 3 characters: an anchor is signed only with a key of 32 characters or more (e.g. `openssl rand -hex 24`)\n',
    });
    const missing = join(dataDir, 'no-such-folder');
    const unwritten = await arbiter(['audit', 'anchor', '--data-dir', dataDir, '--out', join(missing, 'anchor.json')]);
    expect(unwritten).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `arbiter: cannot write the anchor to ${join(missing, 'anchor.json')}: the folder ${missing} does not exist (create it first)\n`,
    });
    mkdirSync(missing);
    expect(
      await arbiter(['audit', 'anchor', '--data-dir', dataDir, '--out', join(missing, 'anchor.json')]),
    ).toMatchObject({ code: 0 });
  }, 180_000);
});

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('arbiter audit on PostgreSQL: the origin is covered by the chain and the anchor', () => {
  let databases = 0;
  async function seedPostgres(): Promise<string> {
    databases += 1;
    const name = `audit_origin_${process.pid}_${databases}`;
    const admin = new pg.Client({ connectionString: cluster.connectionString });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = cluster.connectionString.replace(/\/postgres$/, `/${name}`);
    const backend = await openPostgresBackend({ connectionString: url });
    try {
      for (const row of seeded) await backend.audit.append(row);
    } finally {
      await backend.close();
    }
    return url;
  }

  it('names a widened origin and the hashless row under it, with and without --anchor', async () => {
    const url = await seedPostgres();
    const anchor = join(directory(), 'anchor.json');
    expect(await arbiter(['audit', 'anchor', '--store', url, '--out', anchor])).toMatchObject({ code: 0 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('ALTER TABLE audit_log DISABLE TRIGGER USER');
      await client.query('ALTER TABLE audit_chain_origin DISABLE TRIGGER USER');
      await client.query(widenOrigin);
      await client.query(forgedRow('OVERRIDING SYSTEM VALUE'));
    } finally {
      await client.end();
    }
    expectAttackNamed(await arbiter(['audit', 'verify', '--store', url]), { anchored: false });
    expectAttackNamed(await arbiter(['audit', 'verify', '--store', url, '--anchor', anchor]), { anchored: true });
  }, 180_000);

  it('names an anchor of another store as such, not as rows deleted', async () => {
    const [first, second] = [await seedPostgres(), await seedPostgres()];
    const anchor = join(directory(), 'anchor.json');
    expect(await arbiter(['audit', 'anchor', '--store', second, '--out', anchor])).toMatchObject({ code: 0 });
    const foreign = await arbiter(['audit', 'verify', '--store', first, '--anchor', anchor]);
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toMatch(/^this anchor \(of \S+\) belongs to store [0-9a-f]{32}, not to this store/m);
    expect(foreign.stdout).not.toMatch(/deleted|rewritten/);
  }, 180_000);
});
