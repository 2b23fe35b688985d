import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer } from '../../src/models/test-support/fake-anthropic-server.js';
import { startFakeGeminiServer } from '../../src/models/test-support/fake-gemini-server.js';
import { ask } from './claude-with-gemini-fallback.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function fakes(anthropicReplies: Parameters<typeof startFakeAnthropicServer>[0]['respond']) {
  const claudeServer = await startFakeAnthropicServer({ respond: anthropicReplies });
  const geminiServer = await startFakeGeminiServer({
    respond: [
      { kind: 'content', functionCalls: [{ name: 'query_order', args: { order_id: 'SO20260901' } }] },
      { kind: 'content', text: 'Gemini here: SO20260901 has shipped.' },
    ],
  });
  closers.push(
    () => claudeServer.close(),
    () => geminiServer.close(),
  );
  return {
    claudeServer,
    geminiServer,
    claude: createAnthropic({ baseURL: claudeServer.baseUrl, apiKey: 'sk-ant-test-key-0000' })('claude-sonnet-4-5'),
    gemini: createGoogleGenerativeAI({ baseURL: geminiServer.baseUrl, apiKey: 'gemini-test-key-0000' })(
      'gemini-2.5-flash',
    ),
  };
}

describe('the README example: Claude with thinking, Gemini as its fallback', () => {
  it('answers with Claude, its thinking sent back on the next step, the text streamed and priced', async () => {
    const { claude, gemini, claudeServer, geminiServer } = await fakes([
      {
        kind: 'message',
        thinking: [{ text: 'Look the order up.', signature: 'sig-readme' }],
        toolCalls: [{ id: 'toolu_1', name: 'query_order', input: { order_id: 'SO20260901' } }],
      },
      { kind: 'message', text: 'SO20260901 has shipped.', textChunkSize: 5 },
    ]);
    const streamed: string[] = [];
    const result = await ask({
      question: 'Where is SO20260901?',
      claude,
      gemini,
      write: (text) => streamed.push(text),
    });
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('SO20260901 has shipped.');
    expect(streamed.join('')).toBe('SO20260901 has shipped.');
    expect(result.cost).toBeGreaterThan(0);
    expect(claudeServer.refusals).toEqual([]);
    expect((claudeServer.requests[1]?.body as { thinking?: unknown } | undefined)?.thinking).toEqual({
      type: 'enabled',
      budget_tokens: 2048,
    });
    expect(geminiServer.requests).toHaveLength(0);
  });

  it('hands over to Gemini when Anthropic stays overloaded', async () => {
    const overloaded = { kind: 'error', status: 529, type: 'overloaded_error' } as const;
    const { claude, gemini, geminiServer } = await fakes([overloaded, overloaded, overloaded]);
    const result = await ask({ question: 'Where is SO20260901?', claude, gemini, write: () => {} });
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Gemini here: SO20260901 has shipped.');
    expect(geminiServer.refusals).toEqual([]);
    expect(geminiServer.requests).toHaveLength(2);
  });
});
