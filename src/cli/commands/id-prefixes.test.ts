import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../loop/run-agent.js';
import { runSession } from '../../loop/run-session.js';
import { callsWithIds, openGateHarness, statelessModel } from '../../store/sqlite/test-support/gate-harness.js';
import { auditCommand } from './audit.js';
import { sessionsCommand } from './sessions.js';
import { undoCommand } from './undo.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});
function directory(): string {
  const created = mkdtempSync(join(tmpdir(), 'arbiter-id-prefixes-'));
  directories.push(created);
  return created;
}

// Time-ordered ids (UUIDv7) of two sessions begun in the same minute: their first 8 characters are alike.
const first = '01a24c56-7b2e-7c41-9a0b-5d3e2f1a0001';
const second = '01a24c56-9d01-7e22-8b1c-6e4f3a2b0002';

describe('arbiter audit: the ids that tell rows apart', () => {
  async function twoSessions() {
    const dataDirectory = directory();
    const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
    for (const sessionId of [first, second]) {
      await runAgent({
        ...harness.runOptions,
        sessionId,
        runId: sessionId.replace('01a24c56', '01a24c57'),
        model: statelessModel([callsWithIds(['call_1', 'read_balance', { account: 'AC1001' }])]),
        messages: [{ role: 'user', content: 'balance?' }],
      });
    }
    harness.store.close();
    return dataDirectory;
  }

  it('shows each session and run id by its shortest beginning no other row shares, not 8 characters alike', async () => {
    const dataDirectory = await twoSessions();
    const { stdout } = await auditCommand({ dataDirectory });
    const cells = stdout.slice(1).map((line) => line.split(/\s+/).slice(1, 3));
    expect(cells).toEqual([
      ['01a24c56-7', '01a24c57-7'],
      ['01a24c56-9', '01a24c57-9'],
    ]);
  });

  it('takes any beginning of one session id for --session, and names the candidates of an ambiguous one', async () => {
    const dataDirectory = await twoSessions();
    const shown = await auditCommand({ dataDirectory, sessionId: '01a24c56-9', json: true });
    expect(shown.stdout.map((line) => (JSON.parse(line) as { sessionId: string }).sessionId)).toEqual([second]);
    expect(await auditCommand({ dataDirectory, sessionId: '01a24c56' })).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: [
        `arbiter: session id "01a24c56" is ambiguous: 2 sessions start with it: ${first}, ${second}; give more of it`,
      ],
    });
    expect((await auditCommand({ dataDirectory, sessionId: 'ffff' })).stdout).toEqual([
      'no audit entries for session ffff',
    ]);
  });
});

describe('arbiter sessions and undo: an id by its beginning', () => {
  it('show, export and fork take a unique beginning; an ambiguous one exits 2 naming the sessions', async () => {
    const dataDirectory = directory();
    const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
    const principal = harness.runOptions.principal;
    const [one, two] = [await harness.sessions.create({ principal }), await harness.sessions.create({ principal })];
    await harness.sessions.append({ sessionId: two.id, messages: [{ role: 'user', content: 'second session' }] });
    harness.store.close();
    // UUIDv7: made in the same millisecond or minute, they share their beginning; find where they part.
    let common = 0;
    while (one.id[common] === two.id[common]) common += 1;
    const sessions = (...args: string[]) => sessionsCommand({ args: [...args, '--data-dir', dataDirectory] });

    const ambiguous = await sessions('show', one.id.slice(0, common));
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr[0]).toMatch(/^arbiter: session id "[0-9a-f-]+" is ambiguous: 2 sessions start with it: /);
    for (const id of [one.id, two.id]) expect(ambiguous.stderr[0]).toContain(id);
    const shown = await sessions('show', two.id.slice(0, common + 1));
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout[0]).toBe(`session   ${two.id}`);
    expect(shown.stdout.join('\n')).toContain('second session');
    expect((await sessions('export', two.id.slice(0, common + 1))).exitCode).toBe(0);
    const forked = await sessions('fork', one.id.slice(0, common + 1).toUpperCase(), '--at', '0');
    expect(forked.stdout[0]).toMatch(new RegExp(`^forked ${one.id} at message 0: new session `));

    expect((await sessions('show', 'no-such-session')).stderr).toEqual(['arbiter: no session no-such-session']);
  });

  it('undo --run takes a beginning of the run id', async () => {
    const dataDirectory = directory();
    const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
    const session = await harness.sessions.create({ principal: harness.runOptions.principal });
    const { runId } = await runSession({
      ...harness.runOptions,
      sessions: harness.sessions,
      sessionId: session.id,
      userMessage: 'Tag it',
      model: statelessModel([callsWithIds(['call_tag', 'tag_account', { account: 'AC2002', tag: 'vip' }])]),
    });
    const undone = await undoCommand({
      toolCallId: 'call_tag',
      runId: runId.slice(0, 8),
      undoneBy: 'li.wei',
      dataDirectory,
      tools: harness.tools,
    });
    harness.store.close();
    expect(undone).toEqual({
      exitCode: 0,
      stdout: ['undone call_tag (tag_account {"account":"AC2002","tag":"vip"}) by li.wei'],
      stderr: [],
    });
  });
});
