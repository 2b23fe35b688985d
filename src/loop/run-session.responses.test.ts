import { afterEach, describe, expect, it } from 'vitest';
import { OpenAiResponsesModel } from '../models/openai-responses-model.js';
import { type FakeChatServer, startFakeChatServer } from '../models/test-support/fake-chat-server.js';
import { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { defineTool } from '../tools/define-tool.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { runSession } from './run-session.js';

let server: FakeChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] };

describe('runSession on the Responses API', () => {
  it('keeps reasoning items in the stored session, so a later turn (another model object) sends them back', async () => {
    server = await startFakeChatServer({
      respond: [
        {
          kind: 'response',
          reasoning: { encryptedContent: 'gAAAAB-stored-reasoning' },
          toolCalls: [{ id: 'call_1', name: 'query_order', arguments: '{"order_id":"SO20260901"}' }],
        },
        { kind: 'response', text: 'It shipped.' },
        { kind: 'response', text: 'You are welcome.' },
      ],
    });
    const tools = new ToolRegistry().register(
      defineTool<{ order_id: string }>({
        name: 'query_order',
        description: 'Look up an order. Not for refunds.',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string', description: 'Order id' } },
          required: ['order_id'],
        },
        sideEffect: 'read',
        execute: ({ order_id }) => ({ order_id, status: 'shipped' }),
      }),
    );
    const store = openSqliteStore({ path: ':memory:' });
    try {
      const sessions = new SqliteSessionStore({ database: store.database });
      const session = await sessions.create({ principal });
      const url = server.url;
      const model = () => new OpenAiResponsesModel({ baseUrl: url, apiKey: 'sk-test', model: 'gpt-5-mini' });

      const first = await runSession({
        sessions,
        sessionId: session.id,
        userMessage: 'Where is SO20260901?',
        model: model(),
        tools,
        principal,
      });
      expect(first.stopReason).toBe('completed');
      const second = await runSession({
        sessions,
        sessionId: session.id,
        userMessage: 'Thanks',
        model: model(),
        tools,
        principal,
      });
      expect(second.text).toBe('You are welcome.');

      const input = (server.requests[2]?.body as { input?: Record<string, unknown>[] } | undefined)?.input ?? [];
      expect(
        input.map((item) =>
          item['type'] === 'message' ? `${item['role']}: ${String(item['content'])}` : item['type'],
        ),
      ).toEqual([
        'user: Where is SO20260901?',
        'reasoning',
        'function_call',
        'function_call_output',
        'assistant: It shipped.',
        'user: Thanks',
      ]);
      expect(input[1]).toEqual({
        type: 'reasoning',
        id: 'rs_fake_0',
        summary: [],
        encrypted_content: 'gAAAAB-stored-reasoning',
      });
    } finally {
      store.close();
    }
  });
});
