import { describe, expect, it } from 'vitest';
import { runShopDemo } from './shop-demo.js';

async function transcript(options: Omit<Parameters<typeof runShopDemo>[0], 'write'>) {
  const lines: string[] = [];
  const result = await runShopDemo({ ...options, dataDirectory: ':memory:', write: (line) => lines.push(line) });
  return { text: lines.join('\n'), result };
}

describe('runShopDemo', () => {
  it('shows the model fixing its call from arbiter’s message', async () => {
    const { text, result } = await transcript({});
    expect(result.stopReason).toBe('completed');
    expect(text).toMatchInlineSnapshot(`
      "customer  Hi, where is my order 12345? The confirmation email calls it SO20260901.
      model     calls query_order {"order_id":12345}
      arbiter   rejected before execution; the model reads:
                The call to query_order was not run: 1 problem with its arguments. Fix it and call query_order again.
                - \`order_id\`: expected a string matching ^SO\\d{8}$ (Order number, "SO" + 8 digits, e.g. SO20260901). Valid example: "SO20260901". You sent the number 12345.
      model     calls query_order {"order_id":"SO20260901"}
      arbiter   query_order ran; result: {"order_id":"SO20260901","status":"shipped","placed_at":"2026-09-01T02:15:00Z","items":[{"sku":"SKU-MOUSE-01"…
      assistant Your order SO20260901 is shipped: it was placed on 2026-09-01T02:15:00Z and is on its way to you.
      [completed] the model answered; 3 model calls, 2 tool calls"
    `);
  });

  it('ends with a hand-off when every error says only "Tool execution failed"', async () => {
    const { text, result } = await transcript({ errorStyle: 'vague' });
    expect(result.stopReason).toBe('tool_failures');
    expect(text).toMatchInlineSnapshot(`
      "customer  Hi, where is my order 12345? The confirmation email calls it SO20260901.
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

  it('runs in Chinese', async () => {
    const { text, result } = await transcript({ locale: 'zh-CN' });
    expect(result.stopReason).toBe('completed');
    expect(text).toMatchInlineSnapshot(`
      "顾客      你好，我的订单 12345 到哪了？确认邮件里写的是 SO20260901。
      模型      调用 query_order {"order_id":12345}
      arbiter   执行前被拦下，模型读到：
                调用 query_order 未执行：参数有 1 处问题。请改正后重新调用 query_order。
                - \`order_id\`：需要匹配 ^SO\\d{8}$ 的字符串（Order number, "SO" + 8 digits, e.g. SO20260901）。合法示例："SO20260901"。你传的是数字 12345。
      模型      调用 query_order {"order_id":"SO20260901"}
      arbiter   query_order 已执行，结果： {"order_id":"SO20260901","status":"shipped","placed_at":"2026-09-01T02:15:00Z","items":[{"sku":"SKU-MOUSE-01"…
      助手      你的订单 SO20260901 当前状态为 shipped，下单时间 2026-09-01T02:15:00Z，正在配送途中。
      [completed] 模型已作答；模型调用 3 次，工具调用 2 次"
    `);
  });
});
