import { describe, expect, it } from 'vitest';
import { a2aServerTexts } from './a2a-server-texts.js';

describe('a2aServerTexts', () => {
  it('ends the reason of an input-required task with one full stop, whether or not the rule wrote one', () => {
    const texts = a2aServerTexts('en');
    for (const reason of [
      'a member of staff must approve it.',
      'a member of staff must approve it',
      ' it is over the cap. ',
    ]) {
      const text = texts.awaitingApproval({ approvalId: 'ap_1', tool: 'apply_refund', reason });
      expect(text).not.toMatch(/\.\./);
      expect(text).toMatch(/\. The task continues once it is decided\.$/);
    }
    expect(
      texts.awaitingApproval({
        approvalId: 'ap_1',
        tool: 'apply_refund',
        reason: 'a member of staff must approve it.',
      }),
    ).toMatchInlineSnapshot(
      `"apply_refund waits for a person's approval (approval ap_1): a member of staff must approve it. The task continues once it is decided."`,
    );
  });

  it('does the same in zh-CN: one 。 and no stray full stop', () => {
    const texts = a2aServerTexts('zh-CN');
    for (const reason of ['退款超过上限。', '退款超过上限', 'over the cap.']) {
      const text = texts.awaitingApproval({ approvalId: 'ap_1', tool: 'apply_refund', reason });
      expect(text).not.toMatch(/[.。]{2}/u);
    }
    expect(
      texts.awaitingApproval({ approvalId: 'ap_1', tool: 'apply_refund', reason: '退款超过上限' }),
    ).toMatchInlineSnapshot(`"apply_refund 需要人工审批（审批 ap_1）：退款超过上限。审批决定后任务会继续。"`);
  });
});
