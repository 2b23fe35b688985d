import { describe, expect, it } from 'vitest';
import { redactConversation } from '../context/redact-conversation.js';
import type { Locale } from '../core/locale.js';
import { readToolFeedback } from '../models/read-tool-feedback.js';
import {
  callsWithIds,
  openGateHarness,
  statelessModel,
  toolMessage,
} from '../store/sqlite/test-support/gate-harness.js';
import { runAgent } from './run-agent.js';

const payment = { account: 'AC1001', amount_cents: 500, reference: 'INV-7', card_number: '4111' };

/** The same payment (one idempotency key) asked in two runs: what the model reads each time. */
async function payTwice(locale: Locale) {
  const harness = openGateHarness();
  const answers: (string | undefined)[] = [];
  for (const runId of ['run-1', 'run-2']) {
    const result = await runAgent({
      ...harness.runOptions,
      runId,
      locale,
      model: statelessModel([callsWithIds([`call_${runId}`, 'send_payment', payment])]),
      messages: [{ role: 'user', content: 'pay INV-7' }],
    });
    answers.push(toolMessage(result.messages, `call_${runId}`));
  }
  const outcomes = harness.audit.listAudit().map((entry) => entry.outcome);
  harness.store.close();
  return { answers, outcomes };
}

describe('a call its idempotency key already ran', () => {
  it('tells the model it was done before, ahead of what it answered then, not as done now (en)', async () => {
    const { answers, outcomes } = await payTwice('en');
    expect(outcomes).toEqual(['ok', 'replayed:ok']);
    const [first, again] = answers.map((answer) => JSON.parse(answer ?? 'null') as Record<string, unknown>);
    expect(first?.['already_done']).toBeUndefined();
    // The earlier result's fields where they were (a reader and every redaction find them as before), the note first.
    expect(again).toEqual({ already_done: expect.any(String), ...first });
    expect(Object.keys(again ?? {})[0]).toBe('already_done');
    expect(again?.['already_done']).toMatchInlineSnapshot(
      `"Exactly this send_payment call already ran before, so it was not run again; the other fields are what it answered then. Tell the user it was already done earlier; do not say it is being done now."`,
    );
    // Redacting a stored conversation (sessions export, the desk) still finds the replayed answer's fields.
    const [redacted] = redactConversation({
      messages: [{ role: 'tool', tool_call_id: 'call_run-2', content: answers[1] ?? '' }],
      fields: ['account'],
    });
    expect(redacted?.role === 'tool' && JSON.parse(redacted.content)).toMatchObject({ account: '[redacted]' });
    // A scripted model reading results as JSON finds the earlier result's fields.
    expect(readToolFeedback(answers[1] ?? '')).toMatchObject({ kind: 'result', data: first });
  });

  it('says the same in Chinese for a zh-CN run', async () => {
    const { answers } = await payTwice('zh-CN');
    const [first, again] = answers.map((answer) => JSON.parse(answer ?? 'null') as Record<string, unknown>);
    expect(again).toEqual({ already_done: expect.any(String), ...first });
    expect(again?.['already_done']).toMatchInlineSnapshot(
      `"完全相同的 send_payment 调用之前已经执行过，所以这次没有再次执行；其余字段是它当时的结果。请告诉用户这件事之前已经办好，不要说现在正在办理。"`,
    );
  });
});
