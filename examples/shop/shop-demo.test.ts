import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatMessage, runSession } from '@arbiter-runtime/core';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalsCommand } from '../../src/cli/commands/approvals.js';
import { approveCommand } from '../../src/cli/commands/approve.js';
import { auditCommand } from '../../src/cli/commands/audit.js';
import { listSessions } from '../../src/cli/commands/sessions.js';
import { callsWithIds, openGateHarness, statelessModel } from '../../src/store/sqlite/test-support/gate-harness.js';
import { openShopDatabase } from './shop-database.js';
import { resumeShopDemo, runShopDemo } from './shop-demo.js';
import { ShopUsageError } from './shop-usage-error.js';

const fixedNow = () => new Date('2026-09-04T08:00:00Z');

async function transcript(options: Omit<Parameters<typeof runShopDemo>[0], 'write'>) {
  const lines: string[] = [];
  const result = await runShopDemo({
    dataDirectory: ':memory:',
    now: fixedNow,
    ...options,
    write: (line) => lines.push(line),
  });
  return { text: lines.join('\n').replace(/ap_[0-9a-f]{12}/g, 'ap_…'), result, lines };
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function refundsIn(dataDirectory: string) {
  const shop = openShopDatabase({ path: join(dataDirectory, 'shop.db') });
  try {
    return shop.connection.prepare('SELECT refund_no, order_id, amount_cents FROM refunds ORDER BY refund_no').all();
  } finally {
    shop.close();
  }
}

describe('runShopDemo', () => {
  it('shows the model fixing its call, adding a note it can undo, a small refund running on its own and a large one waiting for a person', async () => {
    const { text, result } = await transcript({});
    expect(result.stopReason).toBe('awaiting_approval');
    expect(text).toMatchInlineSnapshot(`
      "customer  Hi, I asked for a refund last week, number 2026090001. Has the money come back yet?
      model     calls query_refund {"refund_no":"RF2026090001"}
      arbiter   query_refund ran; result: {"refunds":[{"refund_no":"RF2026090001","order_id":"SO20260902","amount_cents":7900,"reason_category":"damage…
      assistant Your refund RF2026090001 on order SO20260902 is completed: the money went back to your original payment method on 2026-08-31T08:00:00Z.
      [completed] the model answered; 2 model calls, 1 tool call
      customer  Hi, where is my order 12345? The confirmation email calls it SO20260901. Please ask the courier to leave it at the building reception.
      model     calls query_order {"order_id":12345}
      arbiter   rejected before execution; the model reads:
                The call to query_order was not run: 1 problem with its arguments. Fix it and call query_order again.
                - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order number, "SO" + 8 digits, e.g. SO20260901). Valid example: "SO20260901". You sent the number 12345.
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   query_order ran; result: {"order_id":"SO20260901","status":"shipped","placed_at":"2026-09-01T02:15:00Z","items":[{"sku":"SKU-MOUSE-01"…
      model     calls add_order_note {"order_id":"SO20260901","note":"Please leave the parcel at the building reception."}
      arbiter   add_order_note ran; result: {"order_id":"SO20260901","note":"Please leave the parcel at the building reception.","created_at":"2026-09-04…
      arbiter   reversible (in memory: use --data-dir to take it back later with arbiter undo)
      assistant Your order SO20260901 is shipped: it was placed on 2026-09-01T02:15:00Z and is on its way to you. I've added a note for the courier: "Please leave the parcel at the building reception."
      [completed] the model answered; 4 model calls, 3 tool calls
      customer  Thanks! Two refunds, please: the box of the mouse in SO20260901 arrived crushed, so 20 yuan back would be fair; and the glass teapot from SO20260902 arrived cracked, so please refund its 200.00 yuan.
      model     calls apply_refund {"order_id":"SO20260901","amount_cents":2000,"reason_category":"damaged","reason":"The mouse's box arrived crushed."}
      arbiter   auto-approved by rule refund_under_50_yuan
      arbiter   apply_refund ran; result: {"refund_no":"RF2026090003","order_id":"SO20260901","amount_cents":2000,"reason_category":"damaged","status":…
      arbiter   [refunded] RF2026090003: 20.00 yuan on SO20260901
      model     calls apply_refund {"order_id":"SO20260902","amount_cents":20000,"reason_category":"damaged","reason":"The glass teapot arrived cracked."}
      arbiter   [awaiting approval] ap_…: A refund of 200.00 yuan on SO20260902 is 50.00 yuan or more, so a member of staff must approve it. Nothing was refunded.
      [awaiting_approval] a call waits for a person; the run is suspended and can be resumed; 2 model calls, 1 tool call
      audit     query_refund    read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     add_order_note  reversible   allowed       -                      -             ok
      audit     apply_refund    irreversible auto_approved refund_under_50_yuan   -             ok
                (in memory: nothing is kept; use --data-dir to decide later)"
    `);
    expect(text).not.toContain('[refunded] RF2026090004');
  });

  it('ends with a hand-off when every error says only "Tool execution failed"', async () => {
    const { text, result } = await transcript({ errorStyle: 'vague' });
    expect(result.stopReason).toBe('tool_failures');
    expect(text).toMatchInlineSnapshot(`
      "customer  Hi, I asked for a refund last week, number 2026090001. Has the money come back yet?
      model     calls query_refund {"refund_no":"RF2026090001"}
      arbiter   query_refund ran; result: {"refunds":[{"refund_no":"RF2026090001","order_id":"SO20260902","amount_cents":7900,"reason_category":"damage…
      assistant Your refund RF2026090001 on order SO20260902 is completed: the money went back to your original payment method on 2026-08-31T08:00:00Z.
      [completed] the model answered; 2 model calls, 1 tool call
      customer  Hi, where is my order 12345? The confirmation email calls it SO20260901. Please ask the courier to leave it at the building reception.
      model     calls query_order {"order_id":12345}
      arbiter   rejected before execution; the model reads:
                Tool execution failed
      model     calls query_order {"order_id":12345}
      arbiter   rejected before execution; the model reads:
                Tool execution failed
      assistant I'm sorry, I couldn't complete this myself. I'm passing your request to a colleague, who will follow up with you.
      [tool_failures] the model could not fix its call; arbiter stopped the run and handed off to a person; 2 model calls, 2 tool calls"
    `);
  });

  it('executes the large refund exactly once, through the stored approval and a resumed run, when approved', async () => {
    const { text, result } = await transcript({ approval: 'approve' });
    expect(result.stopReason).toBe('completed');
    expect(text.slice(text.indexOf('[awaiting_approval]'))).toMatchInlineSnapshot(`
      "[awaiting_approval] a call waits for a person; the run is suspended and can be resumed; 2 model calls, 1 tool call
      arbiter   approved by demo-operator (rule refund_50_yuan_or_more)
      arbiter   apply_refund ran; result: {"refund_no":"RF2026090004","order_id":"SO20260902","amount_cents":20000,"reason_category":"damaged","status"…
      arbiter   [refunded] RF2026090004: 200.00 yuan on SO20260902
      assistant Both refunds are through: 20.00 yuan for the crushed box, and RF2026090004 for the teapot's 200.00 yuan, which our staff approved. The money is back on your original payment method within 1-3 business days.
      [completed] the model answered; 3 model calls, 2 tool calls
      audit     query_refund    read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     add_order_note  reversible   allowed       -                      -             ok
      audit     apply_refund    irreversible auto_approved refund_under_50_yuan   -             ok
      audit     apply_refund    irreversible approved      refund_50_yuan_or_more demo-operator ok"
    `);
    expect(text.match(/\[refunded\]/g)).toHaveLength(2);
  });

  it('lets the model tell the customer what happens next when the large refund is rejected', async () => {
    const { text, result } = await transcript({ approval: 'reject' });
    expect(result.stopReason).toBe('completed');
    expect(text.slice(text.indexOf('[awaiting_approval]'))).toMatchInlineSnapshot(`
      "[awaiting_approval] a call waits for a person; the run is suspended and can be resumed; 2 model calls, 1 tool call
      arbiter   rejected by demo-operator; the model reads:
                Refused (rejected_by_approver): A person reviewed this call and rejected it: Please send us a photo of the cracked teapot first; staff will review the refund within one business day. Do not call apply_refund again for this; tell the user what happened.
      assistant I'm sorry, I can't do that: A person reviewed this call and rejected it: Please send us a photo of the cracked teapot first; staff will review the refund within one business day.
      [completed] the model answered; 3 model calls, 2 tool calls
      audit     query_refund    read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     add_order_note  reversible   allowed       -                      -             ok
      audit     apply_refund    irreversible auto_approved refund_under_50_yuan   -             ok
      audit     apply_refund    irreversible rejected      refund_50_yuan_or_more demo-operator not_run"
    `);
    expect(text.match(/\[refunded\]/g)).toHaveLength(1);
  });

  it('asks the operator with the exact call when approval is "ask"', async () => {
    const questions: string[] = [];
    const { result } = await transcript({
      approval: 'ask',
      ask: async (question) => {
        questions.push(question);
        return true;
      },
    });
    expect(result.stopReason).toBe('completed');
    expect(questions).toMatchInlineSnapshot(`
      [
        "Approve apply_refund {"order_id":"SO20260902","amount_cents":20000,"reason_category":"damaged","reason":"The glass teapot arrived cracked.","tenant_id":"shop","user_id":"C1001"}? [y/N] ",
      ]
    `);
  });

  it('runs in Chinese', async () => {
    const { text, result } = await transcript({ locale: 'zh-CN', approval: 'approve' });
    expect(result.stopReason).toBe('completed');
    expect(text).toMatchInlineSnapshot(`
      "顾客      你好，我上周申请过一笔退款，编号 2026090001，钱退回来了吗？
      模型      调用 query_refund {"refund_no":"RF2026090001"}
      arbiter   query_refund 已执行，结果： {"refunds":[{"refund_no":"RF2026090001","order_id":"SO20260902","amount_cents":7900,"reason_category":"damage…
      助手      你的退款 RF2026090001（订单 SO20260902）状态为 completed：已于 2026-08-31T08:00:00Z 退回原支付方式。
      [已完成] 模型已作答；模型调用 2 次，工具调用 1 次
      顾客      你好，我的订单 12345 到哪了？确认邮件里写的是 SO20260901。请让快递员把包裹放在楼下前台。
      模型      调用 query_order {"order_id":12345}
      arbiter   执行前被拦下，模型读到：
                调用 query_order 未执行：参数有 1 处问题。请改正后重新调用 query_order。
                - \`order_id\`：需要匹配 ^SO\\d{8}$ 的字符串（订单号，"SO" 加 8 位数字，例如 SO20260901）。合法示例："SO20260901"。你传的是数字 12345。
      模型      调用 query_order {"order_id":"SO20260901"}
      arbiter   query_order 已执行，结果： {"order_id":"SO20260901","status":"shipped","placed_at":"2026-09-01T02:15:00Z","items":[{"sku":"SKU-MOUSE-01"…
      模型      调用 add_order_note {"order_id":"SO20260901","note":"请把包裹放在楼下前台。"}
      arbiter   add_order_note 已执行，结果： {"order_id":"SO20260901","note":"请把包裹放在楼下前台。","created_at":"2026-09-04T08:00:00.000Z","notes_on_order":1}
      arbiter   可撤销（内存模式：用 --data-dir 保存后可用 arbiter undo 撤销）
      助手      你的订单 SO20260901 当前状态为 shipped，下单时间 2026-09-01T02:15:00Z，正在配送途中。已为快递员添加备注：“请把包裹放在楼下前台。”
      [已完成] 模型已作答；模型调用 4 次，工具调用 3 次
      顾客      谢谢！还有两笔退款：SO20260901 的鼠标外包装压坏了，退 20 元就好；SO20260902 的玻璃茶壶到货就裂了，请退 200.00 元。
      模型      调用 apply_refund {"order_id":"SO20260901","amount_cents":2000,"reason_category":"damaged","reason":"鼠标外包装到货时已压坏。"}
      arbiter   按规则 refund_under_50_yuan 自动放行
      arbiter   apply_refund 已执行，结果： {"refund_no":"RF2026090003","order_id":"SO20260901","amount_cents":2000,"reason_category":"damaged","status":…
      arbiter   [已退款] RF2026090003：20.00 元，订单 SO20260901
      模型      调用 apply_refund {"order_id":"SO20260902","amount_cents":20000,"reason_category":"damaged","reason":"玻璃茶壶到货时已碎裂。"}
      arbiter   [待确认] ap_…：订单 SO20260902 的退款 200.00 元不低于 50.00 元，需要工作人员审批。 尚未退款。
      [等待确认] 有调用在等待人工确认；本轮已挂起，可稍后继续；模型调用 2 次，工具调用 1 次
      arbiter   demo-operator 已确认（规则 refund_50_yuan_or_more）
      arbiter   apply_refund 已执行，结果： {"refund_no":"RF2026090004","order_id":"SO20260902","amount_cents":20000,"reason_category":"damaged","status"…
      arbiter   [已退款] RF2026090004：200.00 元，订单 SO20260902
      助手      两笔退款都已办好：外包装压坏退 20.00 元；茶壶的 200.00 元退款 RF2026090004 已由工作人员批准。款项将在 1-3 个工作日内原路退回。
      [已完成] 模型已作答；模型调用 3 次，工具调用 2 次
      审计      query_refund    只读         放行          -                      -             成功
      审计      query_order     只读         放行          -                      -             成功
      审计      add_order_note  可撤销       放行          -                      -             成功
      审计      apply_refund    不可逆       自动放行      refund_under_50_yuan   -             成功
      审计      apply_refund    不可逆       人工确认      refund_50_yuan_or_more demo-operator 成功"
    `);
  });

  it('keeps a pending approval in the data directory, to be approved later and the run continued', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-demo-'));
    directories.push(dataDirectory);
    const { lines } = await transcript({ dataDirectory });
    const hint = lines.at(-1) ?? '';
    const approvalId = /arbiter -- approve (ap_[0-9a-f]{12})/.exec(hint)?.[1];
    if (approvalId === undefined) throw new Error(`no approval id in: ${hint}`);
    expect(hint.replace(approvalId, 'ap_…').replace(dataDirectory, 'DIR')).toBe(
      '          decide later: npm run arbiter -- approve ap_… --data-dir DIR   (or: --reject --reason "…")',
    );
    expect(refundsIn(dataDirectory)).toHaveLength(3);
    const listed = await approvalsCommand({ dataDirectory });
    expect(listed.stdout).toHaveLength(1);
    expect(listed.stdout[0]).toContain(`${approvalId}  pending`);

    const approved = await approveCommand({
      approvalId,
      approver: 'li.wei',
      dataDirectory,
      resume: async ({ sessionId }) => {
        const printed: string[] = [];
        const result = await resumeShopDemo({ sessionId, dataDirectory, write: (line) => printed.push(line) });
        return { stdout: printed, failed: result.stopReason === 'error' };
      },
    });
    expect(approved.exitCode).toBe(0);
    expect(approved.stdout.slice(1, 5)).toEqual([
      // The command line records where the decision came from beside --by (docs/cli.md: what --by proves).
      expect.stringMatching(
        /^arbiter {3}approved by li\.wei \(command line: OS user .+, host .+\) \(rule refund_50_yuan_or_more\)$/,
      ),
      expect.stringContaining('apply_refund ran; result: {"refund_no":"RF2026090004"'),
      'arbiter   [refunded] RF2026090004: 200.00 yuan on SO20260902',
      expect.stringContaining('assistant Both refunds are through'),
    ]);
    expect(refundsIn(dataDirectory)).toHaveLength(4);

    const twice = await approveCommand({ approvalId, approver: 'mallory', dataDirectory });
    expect(twice).toEqual({
      exitCode: 1,
      stdout: [],
      stderr: [
        expect.stringMatching(
          new RegExp(`^approval ${approvalId} was already decided: approved by li\\.wei \\(command line: `),
        ),
      ],
    });
    const audit = await auditCommand({ dataDirectory, json: true });
    expect(audit.stdout.map((line) => (JSON.parse(line) as { tool: string; decision: string }).tool)).toEqual([
      'query_refund',
      'query_order',
      'add_order_note',
      'apply_refund',
      'apply_refund',
    ]);
    expect(audit.stdout.map((line) => (JSON.parse(line) as { decision: string }).decision)).toEqual([
      'allowed',
      'allowed',
      'allowed',
      'auto_approved',
      'approved',
    ]);
  });

  it('says a refund an earlier demo made was not made again when a new session asks for it', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-demo-'));
    directories.push(dataDirectory);
    await transcript({ dataDirectory, approval: 'approve' });
    const { text } = await transcript({ dataDirectory, approval: 'approve' });
    expect(refundsIn(dataDirectory)).toHaveLength(4);
    const refunds = text.slice(text.indexOf('customer  Thanks!'));
    expect(refunds).not.toContain('apply_refund ran');
    expect(refunds).not.toContain('[refunded] ');
    expect(
      refunds.match(/apply_refund did not run again: an earlier call with the same idempotency key did/g),
    ).toHaveLength(2);
    expect(refunds).toContain('[refunded earlier] RF2026090003: 20.00 yuan on SO20260901; nothing was refunded now');
    expect(refunds).toContain('[refunded earlier] RF2026090004: 200.00 yuan on SO20260902; nothing was refunded now');
  });

  it('prints each progress line under the call it belongs to when nobody watches live', async () => {
    const { lines } = await transcript({ live: 'progress', tty: false });
    expect(lines.slice(0, 12).map((line) => line.slice(0, 72))).toMatchInlineSnapshot(`
      [
        "customer  Hi, I asked for a refund last week, number 2026090001. Has the",
        "model     calls query_refund {"refund_no":"RF2026090001"}",
        "  › Checking your refund…",
        "arbiter   query_refund ran; result: {"refunds":[{"refund_no":"RF20260900",
        "assistant Your refund RF2026090001 on order SO20260902 is completed: the",
        "[completed] the model answered; 2 model calls, 1 tool call",
        "customer  Hi, where is my order 12345? The confirmation email calls it S",
        "model     calls query_order {"order_id":12345}",
        "  › Fixing the request…",
        "arbiter   rejected before execution; the model reads:",
        "          The call to query_order was not run: 1 problem with its argume",
        "          - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order numb",
      ]
    `);
  });
});

describe('runShopDemo continuing the approval an earlier demo left pending', () => {
  it('approves that approval in its session and finishes the run, making nothing twice', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-demo-waiting-'));
    directories.push(dataDirectory);
    const sessions: string[] = [];
    const onSession = (sessionId: string) => sessions.push(sessionId);
    await transcript({ dataDirectory, onSession });
    const [waiting] = (await approvalsCommand({ dataDirectory, json: true })).stdout.map(
      (line) => JSON.parse(line) as { approvalId: string },
    );

    const { text, result } = await transcript({ dataDirectory, approval: 'approve', continueWaiting: true, onSession });
    expect(result.stopReason).toBe('completed');
    expect(sessions[1]).toBe(sessions[0]);
    expect(text.replace(sessions[0] ?? '', 'SESSION')).toMatchInlineSnapshot(`
      "continuing session SESSION of an earlier demo: its run waits for approval ap_… (--new starts a new session instead)
      arbiter   approved by demo-operator (rule refund_50_yuan_or_more)
      arbiter   apply_refund ran; result: {"refund_no":"RF2026090004","order_id":"SO20260902","amount_cents":20000,"reason_category":"damaged","status"…
      arbiter   [refunded] RF2026090004: 200.00 yuan on SO20260902
      assistant Both refunds are through: 20.00 yuan for the crushed box, and RF2026090004 for the teapot's 200.00 yuan, which our staff approved. The money is back on your original payment method within 1-3 business days.
      [completed] the model answered; 3 model calls, 2 tool calls
      audit     query_refund    read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     add_order_note  reversible   allowed       -                      -             ok
      audit     apply_refund    irreversible auto_approved refund_under_50_yuan   -             ok
      audit     apply_refund    irreversible approved      refund_50_yuan_or_more demo-operator ok"
    `);
    expect((await approvalsCommand({ dataDirectory })).stdout).toEqual(['no pending approvals']);
    const all = (await approvalsCommand({ dataDirectory, all: true, json: true })).stdout.map(
      (line) => JSON.parse(line) as { approvalId: string; status: string; approver: string },
    );
    expect(all).toEqual([
      expect.objectContaining({ approvalId: waiting?.approvalId, status: 'approved', approver: 'demo-operator' }),
    ]);
    expect(refundsIn(dataDirectory)).toHaveLength(4);
  });

  it("goes on with the customer's next request after the repeated-call brake stopped a run, where a refused call is corrected", async () => {
    // A test model in the shape of the README's real one (Qwen2.5-Coder-0.5B asks for the same lookup until
    // arbiter's brake stops the run): the customer writes again, as in a chat, and the next run is the model's,
    // with fresh brakes; here its refund is refused and corrected (Qwen's own refund is refused, not corrected).
    const askedForRefunds = (messages: readonly ChatMessage[]) =>
      messages.findLast((message) => message.role === 'user')?.content?.includes('Two refunds') === true;
    const refund = (id: string, reason_category: string) =>
      callsWithIds([
        id,
        'apply_refund',
        { order_id: 'SO20260901', amount_cents: 2000, reason_category, reason: "The mouse's box arrived crushed." },
      ]);
    const lookup = (id: string) => callsWithIds([id, 'query_order', { order_id: 'SO20260901' }]);
    const model = statelessModel([
      (messages) => (askedForRefunds(messages) ? refund('call_r1', 'crushed') : lookup('call_q1')),
      (messages) => (askedForRefunds(messages) ? refund('call_r2', 'damaged') : lookup('call_q2')),
      (messages) =>
        askedForRefunds(messages)
          ? { role: 'assistant', content: 'Refunded 20.00 yuan on SO20260901.' }
          : lookup('call_q3'),
    ]);
    const { text, result } = await transcript({ model });
    expect(result.stopReason).toBe('completed');
    expect(text.replace(/\{"order_id":"SO20260901","status".*/g, '…')).toMatchInlineSnapshot(`
      "customer  Hi, I asked for a refund last week, number 2026090001. Has the money come back yet?
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   query_order ran; result: …
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   query_order ran; result: …
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   stopped by a brake; the model reads:
                Not run: you already called query_order with exactly these arguments 2 times and the result will not change. Do not call it again; answer the user from the results you already have.
      assistant done
      [repeated_call] the model made the same call a third time; arbiter stopped the run; 4 model calls, 3 tool calls
      customer  Hi, where is my order 12345? The confirmation email calls it SO20260901. Please ask the courier to leave it at the building reception.
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   query_order ran; result: …
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   query_order ran; result: …
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   stopped by a brake; the model reads:
                Not run: you already called query_order with exactly these arguments 2 times and the result will not change. Do not call it again; answer the user from the results you already have.
      assistant done
      [repeated_call] the model made the same call a third time; arbiter stopped the run; 4 model calls, 3 tool calls
      customer  Thanks! Two refunds, please: the box of the mouse in SO20260901 arrived crushed, so 20 yuan back would be fair; and the glass teapot from SO20260902 arrived cracked, so please refund its 200.00 yuan.
      model     calls apply_refund {"order_id":"SO20260901","amount_cents":2000,"reason_category":"crushed","reason":"The mouse's box arrived crushed."}
      arbiter   rejected before execution; the model reads:
                The call to apply_refund was not run: 1 problem with its arguments. Fix it and call apply_refund again.
                - \`reason_category\`: expected one of the allowed values (Kind of problem). Allowed values: "damaged", "wrong_item", "missing_item", "not_received", "not_as_described", "changed_mind", "other". You sent the string "crushed".
      model     calls apply_refund {"order_id":"SO20260901","amount_cents":2000,"reason_category":"damaged","reason":"The mouse's box arrived crushed."}
      arbiter   auto-approved by rule refund_under_50_yuan
      arbiter   apply_refund ran; result: {"refund_no":"RF2026090003","order_id":"SO20260901","amount_cents":2000,"reason_category":"damaged","status":…
      arbiter   [refunded] RF2026090003: 20.00 yuan on SO20260901
      assistant Refunded 20.00 yuan on SO20260901.
      [completed] the model answered; 3 model calls, 2 tool calls
      audit     query_order     read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     query_order     read         allowed       -                      -             ok
      audit     apply_refund    irreversible auto_approved refund_under_50_yuan   -             ok"
    `);
  });

  it('stops after a hand-off to a person: the customer does not go on', async () => {
    const model = statelessModel([
      callsWithIds(['call_1', 'query_order', { order_id: 12345 }]),
      callsWithIds(['call_2', 'query_order', { order_id: '12345' }]),
    ]);
    const { text, result } = await transcript({ model });
    expect(result.stopReason).toBe('tool_failures');
    expect(text).not.toContain('Two refunds');
  });

  it('starts a new session when no demo session waits, and leaves sessions it did not make alone', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-demo-waiting-'));
    directories.push(dataDirectory);
    const harness = openGateHarness({ path: join(dataDirectory, 'arbiter.db') });
    const other = await harness.sessions.create({ principal: harness.runOptions.principal });
    const suspended = await runSession({
      ...harness.runOptions,
      sessions: harness.sessions,
      sessionId: other.id,
      userMessage: 'Pay AC2002 250.00',
      approvals: harness.broker,
      model: statelessModel([
        callsWithIds(['call_pay', 'send_payment', { account: 'AC2002', amount_cents: 25000, reference: 'A' }]),
      ]),
    });
    harness.store.close();
    expect(suspended.stopReason).toBe('awaiting_approval');

    const sessions: string[] = [];
    const { text, result } = await transcript({
      dataDirectory,
      approval: 'approve',
      continueWaiting: true,
      onSession: (sessionId) => sessions.push(sessionId),
    });
    expect(result.stopReason).toBe('completed');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).not.toBe(other.id);
    expect(text).not.toContain('continuing session');
    expect(text).toContain('customer  Hi, where is my order 12345?');
    const pending = (await approvalsCommand({ dataDirectory, json: true })).stdout.map(
      (line) => JSON.parse(line) as { sessionId: string },
    );
    expect(pending.map((approval) => approval.sessionId)).toEqual([other.id]);
  });
});

describe('runShopDemo --session', () => {
  it('finishes the run a stored session left waiting in a later invocation, then stops: nothing refunded twice', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-demo-session-'));
    directories.push(dataDirectory);
    let sessionId = '';
    const first = await runShopDemo({
      dataDirectory,
      write: () => {},
      onSession: (id) => {
        sessionId = id;
      },
    });
    expect(first.stopReason).toBe('awaiting_approval');
    expect(refundsIn(dataDirectory)).toHaveLength(3);

    const lines: string[] = [];
    const second = await runShopDemo({
      dataDirectory,
      sessionId,
      approval: 'approve',
      write: (line) => lines.push(line),
    });
    expect(second.stopReason).toBe('completed');
    // The seeded refunds, the 20.00 yuan one, and the approved 200.00 yuan one.
    expect(refundsIn(dataDirectory)).toHaveLength(4);
    expect(lines[0]).toMatch(/^continuing session \S+: its run waits for approval ap_[0-9a-f]{12}$/);
    expect(lines.filter((line) => line.startsWith('customer'))).toEqual([]);
    expect(lines).toContain('arbiter   [refunded] RF2026090004: 200.00 yuan on SO20260902');
  });

  it('asks the requests again in a finished session, and says what the idempotency keys replayed', async () => {
    const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-demo-session-'));
    directories.push(dataDirectory);
    let sessionId = '';
    await runShopDemo({
      dataDirectory,
      approval: 'approve',
      write: () => {},
      onSession: (id) => {
        sessionId = id;
      },
    });
    const lines: string[] = [];
    const again = await runShopDemo({
      dataDirectory,
      sessionId,
      approval: 'approve',
      write: (line) => lines.push(line),
    });
    expect(again.stopReason).toBe('completed');
    expect(refundsIn(dataDirectory)).toHaveLength(4);
    expect(lines.filter((line) => line.startsWith('customer'))).toHaveLength(3);
    expect(lines.filter((line) => line.includes('[refunded earlier]'))).toHaveLength(2);
  });

  it('refuses a session that does not exist and creates nothing', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'arbiter-demo-session-'));
    directories.push(parent);
    const dataDirectory = join(parent, 'data');
    await expect(runShopDemo({ dataDirectory, sessionId: 'typo', write: () => {} })).rejects.toThrow(
      /^no session typo in .*arbiter\.db; run the demo without --session to start a new one/,
    );
    expect(existsSync(dataDirectory)).toBe(false);

    await runShopDemo({ dataDirectory, write: () => {} });
    const before = await listSessions({ dataDirectory });
    await expect(runShopDemo({ dataDirectory, sessionId: 'typo', write: () => {} })).rejects.toSatisfy(
      ShopUsageError.isInstance,
    );
    expect(await listSessions({ dataDirectory })).toEqual(before);
    await expect(runShopDemo({ dataDirectory: ':memory:', sessionId: 'typo', write: () => {} })).rejects.toThrow(
      '--session typo: nothing is kept in memory, so there is no session to continue',
    );
  });
});
