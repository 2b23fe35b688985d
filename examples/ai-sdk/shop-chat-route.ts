/**
 * @module
 * An AI SDK 7 chat endpoint for `useChat` whose tools are arbiter's: the
 * README's "arbiter's gate inside the AI SDK's loop" snippet, typechecked.
 * (In an application the SDK is imported as `ai`; this repository installs
 * AI SDK 7 under the alias `ai7`.) The same code runs on AI SDK 6.
 *
 * arbiter's server (`createServer`) holds what must outlive a request —
 * approvals, the run records approvers are checked against, idempotency
 * claims, the audit — and serves `POST /v1/approvals/:id` to staff. The
 * application's own route runs the AI SDK's loop with `arbiterTools`.
 */
import { createTierGate, type Principal, ToolRegistry } from '@arbiter-runtime/core';
import { arbiterTools } from '@arbiter-runtime/core/ai-sdk';
import { createServer } from '@arbiter-runtime/core/server';
import { SqliteAuditLog, SqliteIdempotencyStore } from '@arbiter-runtime/core/sqlite';
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  type LanguageModel,
  stepCountIs,
  streamText,
  type UIMessage,
} from 'ai7';
import { openShopDatabase } from '../shop/shop-database.js';
import { createShopTools, shopGateRules } from '../shop/shop-tools.js';

/**
 * The shop's chat: `chat(request, principal)` answers `useChat`'s POST
 * with the UI message stream; `arbiter.app` serves the approval routes.
 *
 * @example
 * const shop = createShopChat({ dataDir: '.arbiter', model: anthropic('claude-sonnet-4-5') });
 * app.post('/api/chat', (c) => shop.chat(c.req.raw, principalOf(c)));
 * app.route('/', shop.arbiter.app); // POST /v1/approvals/:id for staff
 */
export function createShopChat({ dataDir, model }: { dataDir: string; model: LanguageModel }) {
  const database = openShopDatabase({ path: ':memory:' });
  const definitions = createShopTools({ database });
  const registry = new ToolRegistry();
  for (const definition of definitions) registry.register(definition);
  const gate = createTierGate({ rules: shopGateRules, tools: registry });
  const arbiter = createServer({ dataDir, tools: definitions, gateRules: shopGateRules });
  const audit = new SqliteAuditLog({ database: arbiter.store.database });
  const idempotency = new SqliteIdempotencyStore({ database: arbiter.store.database });

  /** One `useChat` request of `principal` (from the application's own login, never from the body). */
  async function chat(request: Request, principal: Principal): Promise<Response> {
    const { id, messages } = (await request.json()) as { id: string; messages: UIMessage[] };
    const stream = createUIMessageStream({
      execute: async ({ writer }) => {
        const tools = arbiterTools(registry, {
          principal,
          conversationId: id,
          gate,
          approvals: arbiter.approvals,
          runs: arbiter.runs,
          idempotency,
          audit,
          signal: request.signal,
          // arbiter's approval id beside the SDK's approval request: what staff decide, what the UI can show.
          onApprovalRequired: (approval) =>
            writer.write({ type: 'data-arbiter-approval', id: approval.toolCallId, data: approval }),
        });
        const result = streamText({
          model,
          messages: await convertToModelMessages(messages, { tools }),
          tools,
          stopWhen: stepCountIs(10),
        });
        writer.merge(result.toUIMessageStream());
      },
    });
    return createUIMessageStreamResponse({ stream });
  }

  return { chat, arbiter, close: () => Promise.all([arbiter.close(), database.close()]) };
}
