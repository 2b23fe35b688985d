/**
 * The scripted shop customer's model, the same for every SDK's mock: it
 * reads the prompt the SDK sends and answers as a careless but correctable
 * model would.
 *
 * The refund is the one the customer's first message names ("refund 80
 * yuan on SO20260902"; default `correctedRefund`).
 *
 * - A first request (no tool result yet): `apply_refund` with a malformed
 *   order id (`2026-0902`), which arbiter refuses with its message.
 * - After exactly one tool result: the corrected call (`SO20260902`, 80.00 yuan).
 * - After more: a text that quotes the last tool result, so a test sees what the model read.
 * - A later user message in a conversation that already has tool results:
 *   the corrected call again ("has my refund gone through?").
 */
export type BrainTurn =
  | { readonly kind: 'call'; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly kind: 'text'; readonly text: string };

export const correctedRefund = {
  order_id: 'SO20260902',
  amount_cents: 8000,
  reason_category: 'damaged',
  reason: 'The mug arrived with a chipped handle.',
} as const;

/** The refund the conversation's first user message asks for, and the malformed first try at it. */
function refundsAskedIn(prompt: readonly { role: string; content: unknown }[]) {
  const first = prompt.find((message) => message.role === 'user');
  const words = JSON.stringify(first?.content ?? '');
  const order = /SO(\d{4})(\d{4})/.exec(words);
  const yuan = /(\d+) yuan/.exec(words);
  const corrected = {
    ...correctedRefund,
    ...(order === null ? {} : { order_id: order[0] }),
    ...(yuan === null ? {} : { amount_cents: Number(yuan[1]) * 100 }),
  };
  const malformed = { ...corrected, order_id: order === null ? '2026-0902' : `${order[1]}-${order[2]}` };
  return { corrected, malformed };
}

/** A brain with its own call ids (`call_1`, `call_2`, …), unique across the requests it answers. */
export function createShopBrain({ prefix = 'call' }: { prefix?: string } = {}): {
  turn(prompt: readonly { role: string; content: unknown }[]): BrainTurn;
  readonly seen: string[];
} {
  let calls = 0;
  const seen: string[] = [];
  const call = (input: unknown): BrainTurn => {
    calls += 1;
    return { kind: 'call', toolCallId: `${prefix}_${calls}`, toolName: 'apply_refund', input: JSON.stringify(input) };
  };
  return {
    seen,
    turn(prompt) {
      const results = toolResultTexts(prompt);
      const { corrected, malformed } = refundsAskedIn(prompt);
      const last = prompt.at(-1);
      if (last?.role === 'user') return results.length === 0 ? call(malformed) : call(corrected);
      const text = results.at(-1) ?? '';
      seen.push(text);
      if (results.length === 1) return call(corrected);
      return { kind: 'text', text: `The tool said: ${text}` };
    },
  };
}

/** The texts of every tool result in the prompt, in order (AI SDK prompt: `{ type: 'tool-result', output: { type: 'text', value } }`). */
function toolResultTexts(prompt: readonly { role: string; content: unknown }[]): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
    for (const part of message.content as { type?: string; output?: { type?: string; value?: unknown } }[]) {
      if (part.type !== 'tool-result') continue;
      const value = part.output?.value;
      texts.push(typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  return texts;
}
