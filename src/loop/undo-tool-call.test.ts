import { describe, expect, it } from 'vitest';
import { UndoError } from '../errors/undo-error.js';
import { callsWithIds, openGateHarness, statelessModel } from '../store/sqlite/test-support/gate-harness.js';
import { runSession } from './run-session.js';
import { undoToolCall } from './undo-tool-call.js';

async function taggedAndPaid() {
  const harness = openGateHarness();
  const session = await harness.sessions.create({ principal: harness.runOptions.principal });
  const result = await runSession({
    ...harness.runOptions,
    sessions: harness.sessions,
    sessionId: session.id,
    userMessage: 'Tag my account and pay 10.00',
    model: statelessModel([
      callsWithIds(
        ['call_tag', 'tag_account', { account: 'AC2002', tag: 'vip' }],
        ['call_pay', 'send_payment', { account: 'AC2002', amount_cents: 1_000, reference: 'R1' }],
      ),
    ]),
  });
  const tags = () => harness.store.database.prepare('SELECT tag FROM account_tags').all();
  const undo = (toolCallId: string) =>
    undoToolCall({
      audit: harness.audit,
      sessions: harness.sessions,
      tools: harness.tools,
      toolCallId,
      undoneBy: 'li.wei',
    });
  return { harness, result, tags, undo };
}

async function undoFailure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UndoError.isInstance(error)) return `${error.failure}: ${error.message}`;
    throw error;
  }
  return 'undone';
}

describe('undoToolCall', () => {
  it("rolls back a reversible call with the tool's undo and audits who did it", async () => {
    const { harness, tags, undo } = await taggedAndPaid();
    expect(tags()).toEqual([{ tag: 'vip' }]);
    const undone = await undo('call_tag');
    expect(undone).toMatchObject({ tool: 'tag_account', toolCallId: 'call_tag' });
    expect(tags()).toEqual([]);
    expect(
      harness.audit.listAudit({ toolCallId: 'call_tag' }).map((entry) => [entry.outcome, entry.rule, entry.approver]),
    ).toEqual([
      ['ok', undefined, undefined],
      ['undone', 'undo', 'li.wei'],
    ]);
  });

  it('refuses to undo the same call twice', async () => {
    const { undo } = await taggedAndPaid();
    await undo('call_tag');
    expect(await undoFailure(undo('call_tag'))).toMatchInlineSnapshot(
      `"already_undone: tool call call_tag (tag_account) was already undone"`,
    );
  });

  it('refuses to undo an irreversible call or one that is not in the audit log', async () => {
    const { undo } = await taggedAndPaid();
    expect(await undoFailure(undo('call_pay'))).toMatchInlineSnapshot(
      `"not_reversible: send_payment is irreversible, not reversible"`,
    );
    expect(await undoFailure(undo('call_nope'))).toMatchInlineSnapshot(`"not_found: no audited tool call call_nope"`);
  });
});
