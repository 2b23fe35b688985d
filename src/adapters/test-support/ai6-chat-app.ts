import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  type LanguageModel,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  stepCountIs,
  streamText,
  type UIMessage,
} from 'ai6';
import { Hono } from 'hono';
import type { Principal } from '../../core/principal.js';
import { arbiterTools } from '../ai-sdk/arbiter-tools.js';
import type { ShopGateFixture } from './shop-gate-fixture.js';

/**
 * An application's chat endpoint on AI SDK 6, the way its docs build one
 * (`streamText` → UI message stream for `useChat`), with `arbiterTools`
 * for the tools: its own login (a bearer token per customer), the chat id
 * as the conversation, arbiter's approval id streamed beside the SDK's
 * approval request as a `data-arbiter-approval` part, and the SDK's own
 * approval signature switched on (which arbiter does not rely on).
 */
export async function startAi6ChatApp({
  fixture,
  model,
  logins,
}: {
  fixture: ShopGateFixture;
  model: LanguageModel;
  logins: Readonly<Record<string, Principal>>;
}): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Hono();
  app.post('/api/chat', async (c) => {
    const principal = logins[(c.req.header('authorization') ?? '').replace(/^Bearer /, '')];
    if (principal === undefined) return c.json({ error: 'unauthorized' }, 401);
    const { id, messages } = await c.req.json<{ id: string; messages: UIMessage[] }>();
    const stream = createUIMessageStream({
      execute: async ({ writer }) => {
        const options = fixture.options(principal, id);
        const tools = arbiterTools(fixture.registry, {
          ...options,
          onApprovalRequired: (approval) => {
            options.onApprovalRequired?.(approval);
            writer.write({ type: 'data-arbiter-approval', id: approval.toolCallId, data: approval });
          },
        });
        const result = streamText({
          model,
          messages: await convertToModelMessages(messages, { tools }),
          tools,
          stopWhen: stepCountIs(5),
          experimental_toolApprovalSecret: 'the-application-signs-its-approval-requests',
        });
        writer.merge(result.toUIMessageStream());
      },
    });
    return createUIMessageStreamResponse({ stream });
  });
  const http = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** The chat's state in plain arrays: what `useChat` keeps in React state. */
class ArrayChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((existing, at) => (at === index ? message : existing));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The browser side: the SDK's `AbstractChat` (what AI SDK 6's `useChat` wraps) over `DefaultChatTransport`. */
export class BrowserChat6 extends AbstractChat<UIMessage> {
  /** Every request body the transport sent, as sent. */
  readonly bodies: string[] = [];

  constructor({ url, token, id }: { url: string; token: string; id: string }) {
    const bodies: string[] = [];
    const init: ChatInit<UIMessage> = {
      id,
      transport: new DefaultChatTransport({
        api: `${url}/api/chat`,
        headers: { authorization: `Bearer ${token}` },
        fetch: async (input, requestInit) => {
          bodies.push(String(requestInit?.body));
          return fetch(input, requestInit);
        },
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    };
    super({ ...init, state: new ArrayChatState() });
    this.bodies = bodies;
  }
}
