/**
 * The operator's commands on any backend and on an application's own tools:
 * a real PostgreSQL cluster (the same database `arbiter serve --store` uses)
 * filled by a run of an application's ticket tools (not the shop), then every
 * operational command pointed at it with `--store` or `ARBITER_STORE_URL` and
 * `--tools MODULE`; bad connection strings answered in one line naming the
 * flag within seconds; the commands agreeing on an empty data directory.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTierGate } from '../src/gate/tier-gate.js';
import { runSession } from '../src/loop/run-session.js';
import { calls, sequenceModel } from '../src/loop/test-support/sequence-model.js';
import { openPostgresBackend, type PostgresBackend } from '../src/store/postgres/open-postgres-backend.js';
import { setUpPostgresCluster } from '../src/store/postgres/test-support/postgres-cluster.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import { createTools } from './fixtures/app-tools/ticket-tools.js';
import { runArbiter } from './support/run-arbiter.js';

const toolsModule = 'test/fixtures/app-tools/ticket-tools.ts';
const arbiter = runArbiter;

const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('the operator commands on PostgreSQL and an application’s own tools', () => {
  let url: string;
  let backend: PostgresBackend;
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-ops-'));
  const principal = { tenantId: 'acme', userId: 'cust-7', roles: ['customer'] };
  let sessionId: string;
  let approvalId: string;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: cluster.connectionString });
    await admin.connect();
    await admin.query('CREATE DATABASE ops');
    await admin.query("CREATE ROLE operator LOGIN PASSWORD 'right-password'");
    await admin.query('GRANT ALL ON DATABASE ops TO operator');
    await admin.query('ALTER DATABASE ops OWNER TO operator');
    await admin.end();
    url = cluster.connectionString.replace(/\/postgres$/, '/ops');
    backend = await openPostgresBackend({ connectionString: url });
    const tools = new ToolRegistry();
    for (const tool of createTools({ dataDir }).tools) tools.register(tool);
    const session = await backend.sessions.create({ principal });
    sessionId = session.id;
    const result = await runSession({
      sessions: backend.sessions,
      sessionId,
      userMessage: 'Close T1 and credit me 20 for the trouble.',
      model: sequenceModel([
        calls(['close_ticket', { ticket_id: 'T1', customer_note: 'sorry for the wait' }]),
        calls(['credit_account', { ticket_id: 'T1', amount: 20 }]),
        { role: 'assistant', content: 'Done.' },
      ]),
      tools,
      principal,
      gate: createTierGate({ tools }),
      approvals: backend.approvals,
      idempotency: backend.idempotency,
      audit: backend.audit,
    });
    expect(result.stopReason).toBe('awaiting_approval');
    const [pending] = await backend.approvals.listApprovals({ status: 'pending' });
    approvalId = pending?.approvalId ?? '';
    await backend.memory.save({
      tenantId: principal.tenantId,
      userId: principal.userId,
      key: 'preferred_contact',
      value: 'e-mail',
      source: { kind: 'user' },
      trusted: true,
    });
    await backend.runtime.saveRun({
      runId: result.runId,
      sessionId,
      model: 'sequence',
      startedAt: Date.now() - 1000,
      endedAt: Date.now(),
      stopReason: result.stopReason,
      steps: 2,
      inputTokens: 10,
      outputTokens: 5,
      errorCode: undefined,
    });
  }, 120_000);

  afterAll(async () => {
    await backend?.close();
  });

  it('lists and decides the approval, shows the audit and verifies its chain on the store', async () => {
    const listed = await arbiter(['approvals', '--store', url]);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain(approvalId);
    expect(listed.stdout).toContain('credit_account {"ticket_id":"T1","amount":20}');

    // The variable works as the flag does.
    const audit = await arbiter(['audit', '--session', sessionId], { ARBITER_STORE_URL: url });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/close_ticket\s+reversible\s+allowed/);
    const verified = await arbiter(['audit', 'verify', '--store', url]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^audit log intact: \d+ rows/m);
    const key = { ARBITER_AUDIT_KEY: 'an operator key of the test, 32+ characters long' };
    const anchor = join(dataDir, 'anchor.json');
    const anchored = await arbiter(['audit', 'anchor', '--out', anchor, '--store', url], key);
    expect(anchored).toMatchObject({ code: 0, stderr: '' });
    const checked = await arbiter(['audit', 'verify', '--anchor', anchor, '--store', url], key);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/anchored heads? checked/);

    const approved = await arbiter(['approve', approvalId, '--by', 'lead-1', '--store', url, '--tools', toolsModule]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(
      new RegExp(`approved ${approvalId} by lead-1 \\(command line: OS user [^,]+, host [^)]+\\): credit_account`),
    );
    // Not the shop demo's resume: the run belongs to whoever runs the application.
    expect(approved.stdout).not.toMatch(/shop|SO2026/i);
    expect((await backend.approvals.getApproval(approvalId))?.status).toBe('approved');
    const again = await arbiter(['approve', approvalId, '--by', 'lead-2', '--store', url]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("undoes a call with the application's own tool, and shows its sessions with its sensitive fields redacted", async () => {
    const [closed] = (await backend.audit.listAudit({ sessionId })).filter((entry) => entry.tool === 'close_ticket');
    expect(JSON.parse(readFileSync(join(dataDir, 'tickets.json'), 'utf8')).T1.status).toBe('closed');
    const undone = await arbiter([
      'undo',
      closed?.toolCallId ?? '',
      '--by',
      'lead-1',
      '--store',
      url,
      '--tools',
      toolsModule,
      '--data-dir',
      dataDir,
    ]);
    expect(undone).toMatchObject({ code: 0, stderr: '' });
    expect(undone.stdout).toContain(`undone ${closed?.toolCallId} (close_ticket`);
    expect(JSON.parse(readFileSync(join(dataDir, 'tickets.json'), 'utf8')).T1.status).toBe('open');

    const list = await arbiter(['sessions', 'list', '--store', url]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(sessionId);
    const shown = await arbiter(['sessions', 'show', sessionId, '--redact', '--store', url, '--tools', toolsModule]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('calls close_ticket');
    expect(shown.stdout).not.toContain('sorry for the wait');
    expect(shown.stdout).not.toContain('[stale');
  });

  it('reads memory, prunes events, purges the audit and reports stats on the store', async () => {
    const memory = await arbiter(['memory', 'list', '--user', principal.userId, '--store', url]);
    expect(memory.code).toBe(0);
    expect(memory.stdout).toContain('preferred_contact = e-mail');
    const forgotten = await arbiter([
      'memory',
      'forget',
      '--key',
      'preferred_contact',
      '--user',
      'cust-7',
      '--store',
      url,
    ]);
    expect(forgotten.stdout).toContain('forgot 1 fact version of cust-7 in tenant acme');

    const pruned = await arbiter(['events', 'prune', '--older-than', '30', '--store', url]);
    expect(pruned).toMatchObject({ code: 0, stdout: 'pruned 0 events of runs finished more than 30 days ago\n' });
    const purged = await arbiter(['audit', 'purge', '--older-than', '400', '--by', 'auditor', '--store', url]);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toMatch(/^purged 0 audit rows older than /);

    const stats = await arbiter(['stats', '--json', '--store', url, '--data-dir', dataDir]);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout).storedRuns).toBe(1);
  });

  it('says in one line, naming the flag, why a store cannot be opened, within 5 s', { timeout: 180_000 }, async () => {
    const port = new URL(cluster.connectionString).port;
    const cases: [string, RegExp][] = [
      // The throwaway cluster trusts local connections, so a wrong password cannot be told; a missing role can.
      [
        `postgres://nobody:some-password@127.0.0.1:${port}/ops`,
        /not allowed to connect \(role "nobody" does not exist\)/,
      ],
      [`postgres://operator:right-password@127.0.0.1:${port}/no_such_db`, /no such database/],
      // A role that may connect but not read arbiter's tables (they belong to the role that migrated them).
      [`postgres://operator:right-password@127.0.0.1:${port}/ops`, /permission denied \(permission denied for table/],
      ['postgres://operator:right-password@127.0.0.1:1/ops', /connection refused/],
      ['postgres://operator@no-such-host.invalid:5432/ops', /unknown host/],
      ['mysql://operator@127.0.0.1/ops', /must be a PostgreSQL connection string/],
    ];
    for (const [bad, reason] of cases) {
      for (const [args, flag] of [
        [['audit', 'verify', '--store', bad], '--store'],
        [['approvals', '--store', bad], '--store'],
        [['sessions', 'list', '--store', bad], '--store'],
      ] as const) {
        const ran = await arbiter(args);
        expect(ran.code, `${args.join(' ')}: ${ran.stderr}`).toBe(2);
        const lines = ran.stderr.trim().split('\n');
        expect(lines, ran.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(reason);
        expect(lines[0]).toContain(flag);
        expect(lines[0]).not.toMatch(/right-password|some-password/);
        expect(ran.ms).toBeLessThan(5_000 + 3_000); // 5 s, plus the tsx start of a loaded machine
      }
      const fromVariable = await arbiter(['memory', 'list', '--user', 'u'], { ARBITER_STORE_URL: bad });
      expect(fromVariable.code).toBe(2);
      expect(fromVariable.stderr).toContain('ARBITER_STORE_URL');
    }
    const serve = await arbiter(['serve', '--port', '0', '--store', cases[0]?.[0] ?? '']);
    expect(serve.code).toBe(2);
    expect(serve.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^arbiter: .*role "nobody" does not exist/),
    ]);
    expect(serve.stderr).toContain('--store');
  });
});

describe('the operator commands agree on an empty data directory', () => {
  const empty = mkdtempSync(join(tmpdir(), 'arbiter-ops-empty-'));
  const noStore = `arbiter: no arbiter store at ${join(empty, 'arbiter.db')}\n`;

  it('answers every reading command with the same line and exit 2', { timeout: 120_000 }, async () => {
    for (const args of [
      ['approvals'],
      ['audit'],
      ['audit', 'verify'],
      ['sessions', 'list'],
      ['sessions', 'show', 'abc'],
      ['memory', 'list', '--user', 'u1'],
      ['memory', 'purge', '--expired'],
      ['events', 'prune', '--older-than', '30'],
      ['approve', 'ap_1'],
      ['undo', 'call_1'],
    ]) {
      const ran = await arbiter([...args, '--data-dir', empty]);
      expect({ args, code: ran.code, stderr: ran.stderr }).toEqual({ args, code: 2, stderr: noStore });
    }
  });

  it('refuses forget without a selector, an empty queries file, approve without an id; says a baseline was replaced', async () => {
    const forget = await arbiter(['memory', 'forget', '--user', 'u1', '--data-dir', empty]);
    expect(forget.code).toBe(2);
    expect(forget.stderr).toContain('memory forget needs exactly one of --key KEY, --fact FACT_ID, --all');

    const queries = join(empty, 'queries.jsonl');
    writeFileSync(queries, '');
    const route = await arbiter(['route', '--tools', 'test/fixtures/real-world-tools.json', '--queries', queries]);
    expect(route).toMatchObject({ code: 2, stdout: '' });
    expect(route.stderr).toContain('holds no requests');

    const approve = await arbiter(['approve']);
    expect(approve.code).toBe(2);
    expect(approve.stderr.split('\n').length).toBeLessThan(10);
    expect(approve.stderr).toMatch(/^arbiter: approve needs the approval id/);

    const baseline = join(empty, 'baseline.json');
    const first = await arbiter(['eval', '--write-baseline', baseline]);
    expect(first.stdout).toContain(`baseline written: ${baseline}`);
    const second = await arbiter(['eval', '--write-baseline', baseline]);
    expect(second.stdout).toContain(`baseline replaced: ${baseline}`);
  }, 180_000);

  it('prints every flag of serve in its help', async () => {
    const help = await arbiter(['serve', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--store', '--node-id', '--lease-ms', '--tools', '--auth', '--mcp', '--memory-tools']) {
      expect(help.stdout).toContain(flag);
    }
  });
});
