import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSession } from '../../loop/run-session.js';
import { callsWithIds, openGateHarness, statelessModel } from '../../store/sqlite/test-support/gate-harness.js';
import { undoCommand } from './undo.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('undoCommand', () => {
  it('undoes a reversible call once and refuses the second time', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-undo-'));
    directories.push(dataDirectory);
    const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
    const session = await harness.sessions.create({ principal: harness.runOptions.principal });
    await runSession({
      ...harness.runOptions,
      sessions: harness.sessions,
      sessionId: session.id,
      userMessage: 'Tag it',
      model: statelessModel([callsWithIds(['call_tag', 'tag_account', { account: 'AC2002', tag: 'vip' }])]),
    });
    const tags = () => harness.store.database.prepare('SELECT COUNT(*) AS count FROM account_tags').get();

    const first = await undoCommand({
      toolCallId: 'call_tag',
      undoneBy: 'li.wei',
      dataDirectory,
      tools: harness.tools,
    });
    expect(first).toEqual({
      exitCode: 0,
      stdout: ['undone call_tag (tag_account {"account":"AC2002","tag":"vip"}) by li.wei'],
      stderr: [],
    });
    expect(tags()).toEqual({ count: 0 });
    const second = await undoCommand({
      toolCallId: 'call_tag',
      undoneBy: 'li.wei',
      dataDirectory,
      tools: harness.tools,
    });
    expect(second).toEqual({
      exitCode: 1,
      stdout: [],
      stderr: ['tool call call_tag (tag_account) was already undone'],
    });
    harness.store.close();
  });
});
