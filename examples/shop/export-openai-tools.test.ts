import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportShopToolsForOpenAi, shopToolsOpenAiFile } from './export-openai-tools.js';

describe('exportShopToolsForOpenAi', () => {
  it('equals the committed shop-tools.openai.json (regenerate with `npx tsx examples/shop/export-openai-tools.ts`)', () => {
    const committed: unknown = JSON.parse(readFileSync(shopToolsOpenAiFile, 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(exportShopToolsForOpenAi())));
  });

  it('leaves the bound user_id out of what the model sees', () => {
    for (const spec of exportShopToolsForOpenAi()) {
      expect(JSON.stringify(spec.function.parameters), spec.function.name).not.toContain('user_id');
    }
  });
});
