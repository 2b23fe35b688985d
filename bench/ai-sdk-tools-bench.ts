/**
 * `npm run bench -- ai-sdk`: what `arbiterTools` adds to a step of the AI
 * SDK's own loop. The same 20-step task (19 calls to a read tool, then an
 * answer) in `generateText` on a zero-latency mock model (the SDK's own),
 * with plain AI SDK tools — `tool()` with a zod schema, as its docs write
 * one, and `tool()` with `jsonSchema()` and no validator, the cheapest tool
 * the SDK runs (the strict baseline: the target is judged on it) — and
 * with `arbiterTools` over the same tool (arbiter's
 * validation, bound principal, tier gate, brakes, in-memory audit; built
 * per request, as an application builds it). The gate lets every call of
 * the task through, so the approvals store is never asked. Each SDK's
 * three configurations first run 200 tasks each, in turns (steady state:
 * what a server sees after its first requests), then paired blocks, order
 * swapped every pair (`measurePaired`): the figure is the median of
 * `arbiter / plain - 1` over the pairs, for AI SDK 7 and AI SDK 6.
 */
import {
  generateText as generateText6,
  jsonSchema as jsonSchema6,
  stepCountIs as stepCountIs6,
  type ToolSet as ToolSet6,
  tool as tool6,
} from 'ai6';
import { MockLanguageModelV3 } from 'ai6/test';
import {
  generateText as generateText7,
  jsonSchema as jsonSchema7,
  stepCountIs as stepCountIs7,
  type ToolSet as ToolSet7,
  tool as tool7,
} from 'ai7';
import { MockLanguageModelV4 } from 'ai7/test';
import { z } from 'zod';
import { arbiterTools } from '../src/adapters/ai-sdk/arbiter-tools.js';
import type { ExternalApprovals } from '../src/adapters/loop-approvals.js';
import { denyAllApprovals } from '../src/gate/approval-broker.js';
import { MemoryAuditLog } from '../src/gate/memory-audit-log.js';
import { createTierGate } from '../src/gate/tier-gate.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/tool-registry.js';
import { orderId } from './ai-sdk-task-model.js';
import { type BenchResult, formatMicroseconds, isMainModule, type Target, target } from './measure.js';
import { measurePaired, type PairedMeasurement } from './measure-paired.js';

const steps = 20;
const limit = 0.15;
const principal = { tenantId: 'shop', userId: 'C1001', roles: ['customer'] } as const;

const description = 'Look up one order. Not for shipments: use track_shipment.';

function registry(): ToolRegistry {
  return new ToolRegistry().register(
    defineTool<{ tenant_id: string; order_id: string; note?: string }>({
      name: 'query_order',
      description,
      parameters: {
        type: 'object',
        properties: {
          tenant_id: { type: 'string', description: 'Tenant' },
          order_id: { type: 'string', description: 'Order number', pattern: '^SO\\d{8}$', examples: ['SO20260901'] },
          note: { type: 'string', description: 'Optional note', maxLength: 200 },
        },
        required: ['tenant_id', 'order_id'],
        additionalProperties: false,
      },
      boundParameters: { tenant_id: 'tenantId' },
      sideEffect: 'read',
      execute: () => ({ ok: true }),
    }),
  );
}

/** Never asked in this task (every call is a read the gate allows); there for the type. */
const noApprovals: ExternalApprovals = { decide: denyAllApprovals.decide, listApprovals: () => [] };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The task's model turn at `step`: a `query_order` call before the last step, then "done". */
function turn(step: number) {
  return step < steps
    ? {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: `call_${step}`,
            toolName: 'query_order',
            input: `{"order_id":"${orderId(step)}"}`,
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage,
        warnings: [],
      }
    : {
        content: [{ type: 'text' as const, text: 'done' }],
        finishReason: { unified: 'stop' as const, raw: undefined },
        usage,
        warnings: [],
      };
}

function taskModel7(): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({ doGenerate: async () => turn(++step) });
}

function taskModel6(): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({ doGenerate: async () => turn(++step) });
}

const parameters = {
  type: 'object',
  properties: {
    order_id: { type: 'string', pattern: '^SO\\d{8}$' },
    note: { type: 'string', maxLength: 200 },
  },
  required: ['order_id'],
  additionalProperties: false,
} as const;

const schema = z.object({ order_id: z.string().regex(/^SO\d{8}$/), note: z.string().max(200).optional() }).strict();

/** The task of one SDK version: its plain baselines and arbiterTools (for profiling scripts too). */
export function sides(sdk: 6 | 7) {
  const tools = registry();
  const gate = createTierGate({ tools });
  const audit = new MemoryAuditLog();
  const check = (count: number) => {
    if (count !== steps) throw new Error(`AI SDK ${sdk} task ended after ${count} steps`);
  };
  const options = () => ({ principal, gate, audit, approvals: noApprovals });
  const execute = async () => ({ ok: true });
  if (sdk === 7) {
    const task = async (tools: ToolSet7) => {
      const result = await generateText7({
        model: taskModel7(),
        tools,
        prompt: 'go',
        stopWhen: stepCountIs7(steps + 1),
      });
      check(result.steps.length);
    };
    const zod = { query_order: tool7({ description, inputSchema: schema, execute }) };
    const json = {
      query_order: tool7({
        description,
        inputSchema: jsonSchema7({ ...parameters, required: [...parameters.required] }),
        execute,
      }),
    };
    return {
      baselines: { zod: () => task(zod), json: () => task(json) },
      subject: () => task(arbiterTools(tools, options())),
    };
  }
  const task = async (tools: ToolSet6) => {
    const result = await generateText6({ model: taskModel6(), tools, prompt: 'go', stopWhen: stepCountIs6(steps + 1) });
    check(result.steps.length);
  };
  const zod = { query_order: tool6({ description, inputSchema: schema, execute }) };
  const json = {
    query_order: tool6({
      description,
      inputSchema: jsonSchema6({ ...parameters, required: [...parameters.required] }),
      execute,
    }),
  };
  return {
    baselines: { zod: () => task(zod), json: () => task(json) },
    subject: () => task(arbiterTools(tools, options())),
  };
}

const baselineNames = { json: 'tool() + jsonSchema(), no validator', zod: 'tool() + zod schema' } as const;

function describeSdk(
  sdk: 6 | 7,
  baseline: keyof typeof baselineNames,
  paired: PairedMeasurement,
): { lines: string[]; target: Target } {
  const plainStep = paired.baseline.wallNanoseconds / steps;
  const arbiterStep = paired.subject.wallNanoseconds / steps;
  const added = paired.wall;
  const entry = target({
    id: `arbiter_tools_step_vs_ai_sdk_${sdk}_${baseline}`,
    description: `what arbiterTools adds to a step of AI SDK ${sdk}'s generateText with ${baselineNames[baseline]}`,
    value: added.median,
    comparison: '<=',
    limit,
  });
  return {
    lines: [
      `  AI SDK ${sdk} against ${baselineNames[baseline]}: plain ${formatMicroseconds(plainStep)} per step, arbiterTools ${formatMicroseconds(arbiterStep)} per step`,
      `    added per step ${formatMicroseconds(arbiterStep - plainStep)}, ratio ${(arbiterStep / plainStep).toFixed(3)}; ` +
        `added (median of pairs) ${(added.median * 100).toFixed(1)}% [95% CI ${(added.confidenceLow * 100).toFixed(1)}%, ${(added.confidenceHigh * 100).toFixed(1)}%], ` +
        `CPU ${(paired.cpu.median * 100).toFixed(1)}%`,
      `    target added <= ${limit * 100}% of the AI SDK's own step: ${entry.met ? 'MET' : 'MISSED'}`,
    ],
    target: entry,
  };
}

/**
 * Runs every configuration of one SDK `tasks` times, in turns, before any of
 * them is timed: the first row measured in the process (AI SDK 7,
 * `jsonSchema()`) otherwise times arbiter's pipeline while V8 still compiles
 * it (a few hundred tasks; the SDK's own code is hot sooner), and the same
 * arbiterTools step read 10-20% dearer there than in the next row.
 */
async function warmUp(side: ReturnType<typeof sides>, tasks: number): Promise<void> {
  for (let task = 0; task < tasks; task += 1) {
    await side.subject();
    await side.baselines.json();
    await side.baselines.zod();
  }
}

export async function runAiSdkToolsBench({
  pairs = 40,
  warmupTasks = 200,
}: {
  pairs?: number;
  warmupTasks?: number;
} = {}): Promise<BenchResult> {
  const lines = [
    `ai-sdk: ${steps}-step generateText task, zero-latency mock model, read tool; each configuration warmed up for ${warmupTasks} tasks, then paired blocks of 5 tasks, ${pairs} pairs`,
  ];
  const targets: Target[] = [];
  const ratios: Record<string, number> = {};
  const figures: Record<string, unknown> = {};
  for (const sdk of [7, 6] as const) {
    const side = sides(sdk);
    await warmUp(side, warmupTasks);
    for (const baseline of ['json', 'zod'] as const) {
      const paired = await measurePaired({
        subject: { call: side.subject },
        baseline: { call: side.baselines[baseline] },
        pairs,
        callsPerBlock: 5,
      });
      const described = describeSdk(sdk, baseline, paired);
      lines.push(...described.lines);
      targets.push(described.target);
      ratios[`arbiterToolsStepVersusAiSdk${sdk}_${baseline}`] =
        paired.subject.wallNanoseconds / paired.baseline.wallNanoseconds;
      figures[`aiSdk${sdk}_${baseline}`] = {
        plainStepMicroseconds: paired.baseline.wallNanoseconds / steps / 1000,
        arbiterStepMicroseconds: paired.subject.wallNanoseconds / steps / 1000,
        addedMedian: paired.wall.median,
        addedConfidence: [paired.wall.confidenceLow, paired.wall.confidenceHigh],
        addedCpuMedian: paired.cpu.median,
      };
    }
  }
  return { lines, ratios, targets, figures };
}

if (isMainModule(import.meta.url)) {
  const { lines } = await runAiSdkToolsBench();
  for (const line of lines) console.log(line);
}
