/**
 * The shop's tools are written in zod. These tests hold the zod definitions
 * to the JSON Schema the shop wrote by hand before (the committed
 * `shop-tools.openai.json`, which the model is sent): the converted schema
 * is that schema, and the message-quality corpus of broken calls gets the
 * same, complete messages from both, in English and in Chinese, and leads
 * the scripted model to the same outcomes.
 */
import { readFileSync } from 'node:fs';
import { type Locale, type ToolDefinition, ToolRegistry, type ToolSpec, validateToolCall } from '@arbiter-runtime/core';
import {
  type EvalToolkitFactory,
  loadSuite,
  readBrokenCallCorpus,
  runErrorMessageExperiment,
} from '@arbiter-runtime/core/evaluation';
import { describe, expect, it } from 'vitest';
import { shopToolsOpenAiFile } from './export-openai-tools.js';
import { openShopDatabase } from './shop-database.js';
import { shopEvalToolkit } from './shop-eval-toolkit.js';
import { shopToolTexts } from './shop-tool-texts.js';
import { createShopTools } from './shop-tools.js';

const corpus = readBrokenCallCorpus('evals/shop/experiments/error-messages.json');
const committed = JSON.parse(readFileSync(shopToolsOpenAiFile, 'utf8')) as ToolSpec[];

/** A shop tool's parameters as written by hand in JSON Schema: what the model sees, plus the bound caller. */
function handWritten(name: string) {
  const spec = committed.find((candidate) => candidate.function.name === name);
  if (spec === undefined) return undefined;
  const { properties, required, ...rest } = spec.function.parameters as {
    properties: Record<string, unknown>;
    required?: string[];
  };
  return {
    ...rest,
    type: 'object',
    properties: {
      tenant_id: { type: 'string', description: shopToolTexts.en.tenantId },
      user_id: { type: 'string', description: shopToolTexts.en.userId },
      ...properties,
    },
    required: ['tenant_id', 'user_id', ...(required ?? [])],
  };
}

/** The same tool with its hand-written JSON Schema instead of the zod one. */
const inJsonSchema = (tool: ToolDefinition): ToolDefinition => ({
  ...tool,
  parameters: handWritten(tool.name) ?? tool.parameters,
});

function registries(): { zod: ToolRegistry; json: ToolRegistry; close: () => void } {
  const database = openShopDatabase({ path: ':memory:' });
  const tools = createShopTools({ database });
  const zod = new ToolRegistry();
  const json = new ToolRegistry();
  for (const tool of tools) {
    zod.register(tool);
    json.register(inJsonSchema(tool));
  }
  return { zod, json, close: () => database.close() };
}

describe('the shop tools written in zod', () => {
  it('convert into the JSON Schema the shop wrote by hand, the caller included', () => {
    const database = openShopDatabase({ path: ':memory:' });
    try {
      const tools = createShopTools({ database });
      expect(tools.map((tool) => tool.name)).toEqual(committed.map((spec) => spec.function.name));
      for (const tool of tools) expect(tool.parameters, tool.name).toEqual(handWritten(tool.name));
    } finally {
      database.close();
    }
  });

  for (const locale of ['en', 'zh-CN'] as const satisfies readonly Locale[]) {
    it(`give every broken call of the message-quality corpus the same complete message as in JSON Schema (${locale})`, () => {
      const { zod, json, close } = registries();
      try {
        let refused = 0;
        let issues = 0;
        for (const call of corpus.calls) {
          const rawArguments = JSON.stringify(call.arguments);
          const fromZod = validateToolCall({ registry: zod, name: call.tool, rawArguments, locale });
          const fromJson = validateToolCall({ registry: json, name: call.tool, rawArguments, locale });
          expect(fromZod.ok, call.id).toBe(fromJson.ok);
          if (fromZod.ok || fromJson.ok) continue;
          refused += 1;
          issues += fromZod.issues.length;
          expect(fromZod.message, call.id).toBe(fromJson.message);
          expect(fromZod.issues, call.id).toEqual(fromJson.issues);
        }
        // All but one of the 38 calls are refused before they run (the other is refused by its tool: no such order).
        expect({ refused, issues }).toEqual({ refused: 37, issues: 41 });
      } finally {
        close();
      }
    });
  }

  it('lead the scripted model to the same outcomes on the corpus as the JSON Schema tools', async () => {
    const inJson: EvalToolkitFactory = (options) => {
      const toolkit = shopEvalToolkit(options);
      return { ...toolkit, tools: toolkit.tools.map(inJsonSchema) };
    };
    const { fixtures } = loadSuite({ directory: 'evals/shop' });
    const run = (toolkit: EvalToolkitFactory) =>
      runErrorMessageExperiment({ corpus, toolkit, fixtures, styles: ['full'] });
    const [fromZod, fromJson] = [await run(shopEvalToolkit), await run(inJson)];
    expect(fromZod.rows).toEqual(fromJson.rows);
    expect(fromZod.styles[0]?.right).toBe(fromJson.styles[0]?.right);
    expect(fromZod.rows).toHaveLength(corpus.calls.length);
    console.log(
      `right outcomes with arbiter's full message: zod ${fromZod.styles[0]?.right}, JSON Schema ${fromJson.styles[0]?.right} of ${corpus.calls.length}`,
    );
  }, 120_000);
});
