import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../loop/run-agent.js';
import { callsWithIds, openGateHarness, statelessModel } from '../../store/sqlite/test-support/gate-harness.js';
import { auditCommand } from './audit.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function auditedDirectory() {
  const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-audit-'));
  directories.push(dataDirectory);
  const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
  for (const sessionId of ['session-a', 'session-b']) {
    await runAgent({
      ...harness.runOptions,
      sessionId,
      runId: `run-${sessionId}`,
      model: statelessModel([
        callsWithIds(
          ['call_1', 'read_balance', { account: 'AC1001' }],
          [
            'call_2',
            'send_payment',
            { account: 'AC1001', amount_cents: 500, reference: sessionId, card_number: '4111' },
          ],
        ),
      ]),
      messages: [{ role: 'user', content: 'pay' }],
    });
  }
  harness.store.close();
  return dataDirectory;
}

describe('auditCommand', () => {
  it('prints the log as a table, only the given session when asked', async () => {
    const dataDirectory = await auditedDirectory();
    const result = await auditCommand({ dataDirectory, sessionId: 'session-b' });
    expect(result.exitCode).toBe(0);
    const table = result.stdout.map((line) =>
      line.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/, 'YYYY-MM-DDTHH:MM:SSZ').replace(/\s+\S+$/, ''),
    );
    expect(table).toMatchInlineSnapshot(`
      [
        "at                    session   run       step  call    tool          tier          decision       rule               approver  outcome",
        "YYYY-MM-DDTHH:MM:SSZ  session-  run-sess  1     call_1  read_balance  read          allowed        -                  -         ok",
        "YYYY-MM-DDTHH:MM:SSZ  session-  run-sess  1     call_2  send_payment  irreversible  auto_approved  payment_under_100  -         ok",
      ]
    `);
    expect((await auditCommand({ dataDirectory })).stdout).toHaveLength(5);
  });

  it('prints one JSON line per entry with sensitive fields redacted when json is set', async () => {
    const dataDirectory = await auditedDirectory();
    const result = await auditCommand({ dataDirectory, json: true });
    const entries = result.stdout.map(
      (line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> },
    );
    expect(entries).toHaveLength(4);
    expect(entries[1]?.arguments).toMatchObject({ card_number: '[redacted]', payer: 'U1' });
    expect(result.stdout.join('\n')).not.toContain('4111');
  });

  it('fails with exit 2 when the data directory has no store, without creating one', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-audit-'));
    directories.push(dataDirectory);
    const result = await auditCommand({ dataDirectory });
    expect(result).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: [`no arbiter store at ${join(dataDirectory, 'arbiter.db')}`],
    });
  });
});
