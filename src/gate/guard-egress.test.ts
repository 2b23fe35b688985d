import { describe, expect, it } from 'vitest';
import { gateTexts } from './gate-texts.js';
import { guardEgress } from './guard-egress.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

const allow = { decision: 'allow' } as const;

describe('guardEgress', () => {
  it('holds an egress call for a person once the conversation holds untrusted content, saying why', () => {
    const { runtime, call } = gatedCallFixture({
      tool: { egress: true },
      runtime: { untrustedSources: new Set(['the order messages', 'fetch_page']) },
    });
    expect(guardEgress(runtime, call, allow)).toMatchInlineSnapshot(`
      {
        "decision": "require_approval",
        "reason": "This conversation contains content from the order messages, fetch_page, which may carry instructions that are not the user's. apply_refund sends data outside, so a person must approve it.",
        "rule": "egress_after_untrusted_content",
      }
    `);
    const chinese = gatedCallFixture({
      tool: { egress: true },
      runtime: { untrustedSources: new Set(['订单留言']), gateTexts: gateTexts('zh-CN') },
    });
    expect(guardEgress(chinese.runtime, chinese.call, allow)).toMatchObject({
      reason:
        '本次对话包含来自 订单留言 的内容，其中可能夹带并非用户本人的指令。apply_refund 会把数据发送到外部，因此需要人工确认。',
    });
  });

  it('keeps the gate’s decision without untrusted content, for a tool without egress, and for a denial', () => {
    const clean = gatedCallFixture({ tool: { egress: true }, runtime: { untrustedSources: new Set() } });
    expect(guardEgress(clean.runtime, clean.call, allow)).toBe(allow);
    const local = gatedCallFixture({ runtime: { untrustedSources: new Set(['fetch_page']) } });
    expect(guardEgress(local.runtime, local.call, allow)).toBe(allow);
    const tainted = gatedCallFixture({
      tool: { egress: true },
      runtime: { untrustedSources: new Set(['fetch_page']) },
    });
    const deny = { decision: 'deny', rule: 'cap', code: 'cap', message: 'No.' } as const;
    expect(guardEgress(tainted.runtime, tainted.call, deny)).toBe(deny);
    // Held for a person already: held under this rule, with both reasons.
    expect(
      guardEgress(tainted.runtime, tainted.call, { decision: 'require_approval', rule: 'big', reason: 'It is big.' }),
    ).toMatchObject({
      rule: 'egress_after_untrusted_content',
      reason: expect.stringMatching(/fetch_page.*It is big\.$/),
    });
  });
});
