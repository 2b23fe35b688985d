import { BrowserChat6, startAi6ChatApp } from '../test-support/ai6-chat-app.js';
import { describeChatScenarios } from '../test-support/chat-scenarios.js';
import { shopModelV3 } from '../test-support/mock-models.js';
import { openShopGateFixture, principals } from '../test-support/shop-gate-fixture.js';
import { createShopBrain } from '../test-support/shop-model-brain.js';

/**
 * The same app on AI SDK 6: `streamText` + `useChat` with `arbiterTools`,
 * its `AbstractChat` over `DefaultChatTransport`, its own mock model
 * (`MockLanguageModelV3`), against a real `arbiter serve`.
 */
describeChatScenarios({
  sdk: 'AI SDK 6',
  open: async () => {
    const fixture = await openShopGateFixture();
    const logins = { 'alice-app-token': principals.alice, 'bob-app-token': principals.bob };
    const app = await startAi6ChatApp({ fixture, model: shopModelV3(createShopBrain()), logins });
    return {
      fixture,
      url: app.url,
      close: async () => {
        await app.close();
        await fixture.close();
      },
    };
  },
  chat: (options) => new BrowserChat6(options),
});
