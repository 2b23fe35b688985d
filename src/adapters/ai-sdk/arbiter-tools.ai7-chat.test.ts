import { BrowserChat, startAi7ChatApp } from '../test-support/ai7-chat-app.js';
import { describeChatScenarios } from '../test-support/chat-scenarios.js';
import { shopModelV4 } from '../test-support/mock-models.js';
import { openShopGateFixture, principals } from '../test-support/shop-gate-fixture.js';
import { createShopBrain } from '../test-support/shop-model-brain.js';

/**
 * AI SDK 7 `streamText` + `useChat` built on `arbiterTools`, tested as a
 * browser app uses it: the SDK's `AbstractChat` over `DefaultChatTransport`
 * against the application's chat endpoint, the SDK's own mock model
 * (`MockLanguageModelV4`), the shop example's tools, and a real `arbiter
 * serve` whose `POST /v1/approvals/:id` is where staff decide.
 */
describeChatScenarios({
  sdk: 'AI SDK 7',
  open: async () => {
    const fixture = await openShopGateFixture();
    const logins = { 'alice-app-token': principals.alice, 'bob-app-token': principals.bob };
    const app = await startAi7ChatApp({ fixture, model: shopModelV4(createShopBrain()), logins });
    return {
      fixture,
      url: app.url,
      close: async () => {
        await app.close();
        await fixture.close();
      },
    };
  },
  chat: (options) => new BrowserChat(options),
});
