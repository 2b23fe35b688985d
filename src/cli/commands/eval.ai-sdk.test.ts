import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ProviderUnderTest, providerCases } from '../../models/test-support/ai-sdk-providers.js';
import { evalCommand } from './eval.js';

let provider: ProviderUnderTest | undefined;
const directories: string[] = [];
afterEach(async () => {
  await provider?.close();
  provider = undefined;
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A one-case suite on the shop's toolkit whose case runs on the configured model. */
function suiteDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-eval-ai-sdk-'));
  directories.push(directory);
  mkdirSync(join(directory, 'cases'));
  copyFileSync(join(import.meta.dirname, '../../../evals/shop/tools.json'), join(directory, 'tools.json'));
  writeFileSync(
    join(directory, 'suite.json'),
    JSON.stringify({
      name: 'ai-sdk',
      toolkit: 'shop',
      fixtures: 'tools.json',
      cases: 'cases',
      defaults: { principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] }, limits: { maxSteps: 4 } },
    }),
  );
  writeFileSync(
    join(directory, 'cases', 'track.json'),
    JSON.stringify({
      id: 'track-on-provider',
      category: 'single-tool',
      description: 'The configured AI SDK provider looks the parcel up and answers.',
      input: 'Where is my parcel for order SO20260901?',
      model: 'configured',
      expect: {
        stopReason: 'completed',
        calls: { executed: ['track_shipment'] },
        answer: { contains: ['SF1402938475610'] },
      },
    }),
  );
  return directory;
}

describe.each(providerCases.filter((entry) => entry.spec === 'v3'))(
  'arbiter eval on the provider ARBITER_PROVIDER names ($label)',
  ({ start, provider: name }) => {
    it('runs a case whose model is "configured" on the provider, and it passes', async () => {
      provider = await start([
        { calls: [{ name: 'track_shipment', input: { order_id: 'SO20260901' } }] },
        { text: 'Your parcel is with SF Express, tracking number SF1402938475610.' },
      ]);
      const result = await evalCommand({
        suite: suiteDirectory(),
        json: true,
        environment: {
          ARBITER_PROVIDER: name,
          ARBITER_MODEL: provider.modelId,
          ARBITER_BASE_URL: provider.baseUrl,
          ARBITER_API_KEY: provider.apiKey,
        },
      });
      expect(result.stderr).toEqual([]);
      expect(JSON.parse(result.stdout[0] ?? '{}')).toMatchObject({ passed: 1, failed: 0 });
      expect(result.exitCode).toBe(0);
      expect(provider.refusals).toEqual([]);
      expect(provider.requests).toHaveLength(2);
    });
  },
);
