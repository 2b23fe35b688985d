import { readFileSync } from 'node:fs';
import type { JsonSchema } from '../core/json-schema.js';
import { InputFileError } from '../errors/input-file-error.js';
import { EventBus } from '../events/event-bus.js';
import { type RunResult, runAgent } from '../loop/run-agent.js';
import type { Script } from '../models/script.js';
import { ScriptedModel } from '../models/scripted-model.js';
import type { CallTrace, RunTrace } from '../observe/run-trace.js';
import { TraceRecorder } from '../observe/trace-recorder.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { compileToolValidator } from '../validation/compile-tool-validator.js';
import { includesValues } from './check-expectations.js';
import { type ErrorStyle, errorDescriber } from './error-describer.js';
import type { EvalToolkitFactory } from './eval-toolkit.js';
import { createFixtureTools, type FixtureToolSpec } from './fixture-tools.js';

/**
 * One broken call of the corpus: what the user said, the call a model made
 * of it, and what a good model does next — call again with these values,
 * or ask the user because the conversation does not hold the value.
 */
export interface BrokenCall {
  readonly id: string;
  /** e.g. `wrong_type`, `bad_format`, `enum_near_miss`, `missing_in_words`, `missing_not_in_words`, `out_of_range`, `unknown_field`. */
  readonly kind: string;
  readonly user: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The argument values of the right call (other fields as sent), or `ask`. */
  readonly expected: Readonly<Record<string, unknown>> | 'ask';
}

export interface BrokenCallCorpus {
  readonly name: string;
  readonly description?: string;
  readonly calls: readonly BrokenCall[];
}

/**
 * What the model did after its broken call. `corrected_1`/`corrected_2`:
 * the call ran with the right values after one or two failed attempts;
 * `wrong_fix`: a call ran, with other values; `asked`: the model asked the
 * user; `gave_up`: it stopped or was handed off; `not_broken`: the first
 * call ran (a corpus mistake).
 */
export type ExperimentOutcome = 'corrected_1' | 'corrected_2' | 'wrong_fix' | 'asked' | 'gave_up' | 'not_broken';

export interface ExperimentRow {
  readonly id: string;
  readonly kind: string;
  readonly style: ErrorStyle;
  readonly outcome: ExperimentOutcome;
  /** Corrected with the right values, or asked when only the user knows. */
  readonly right: boolean;
  readonly modelCalls: number;
}

export interface StyleSummary {
  readonly style: ErrorStyle;
  readonly calls: number;
  readonly outcomes: Readonly<Record<ExperimentOutcome, number>>;
  readonly right: number;
}

export interface ExperimentReport {
  readonly name: string;
  readonly rows: readonly ExperimentRow[];
  readonly styles: readonly StyleSummary[];
}

const askPrefix = 'Could you give me the';
const giveUp = 'Sorry, I could not do that.';
const done = 'Done.';

/**
 * The message-quality experiment: every broken call of the corpus is fed
 * to the scripted model once per error style — arbiter's full message,
 * the field name only, and "Tool execution failed" — and what the model
 * did next is classified. The model may only use what the tool message
 * says and what the user wrote, so the difference between styles is the
 * difference the message makes. Brakes: three failures in a row, so a
 * second correction round can happen.
 *
 * @example
 * const report = await runErrorMessageExperiment({ corpus, toolkit: shopToolkit, fixtures });
 * report.styles.map((summary) => [summary.style, summary.outcomes.corrected_1]);
 */
export async function runErrorMessageExperiment({
  corpus,
  toolkit: makeToolkit,
  fixtures = [],
  styles = ['full', 'field_only', 'vague'],
}: {
  corpus: BrokenCallCorpus;
  toolkit?: EvalToolkitFactory;
  fixtures?: readonly FixtureToolSpec[];
  styles?: readonly ErrorStyle[];
}): Promise<ExperimentReport> {
  const rows: ExperimentRow[] = [];
  for (const style of styles) {
    for (const call of corpus.calls) {
      const toolkit = makeToolkit?.({});
      try {
        const registry = new ToolRegistry();
        for (const tool of [...(toolkit?.tools ?? []), ...createFixtureTools(fixtures)]) registry.register(tool);
        const runs: RunTrace[] = [];
        const events = new EventBus();
        const recorder = new TraceRecorder({ onRun: (run) => runs.push(run) });
        events.subscribe((event) => recorder.record(event));
        const result = await runAgent({
          model: new ScriptedModel({ script: scriptFor(call) }),
          tools: registry,
          messages: [{ role: 'user', content: call.user }],
          // The shop's customer C1001 exists in the shop's tenant only: tools are scoped by tenant and user.
          principal: { tenantId: 'shop', userId: 'C1001', roles: ['customer'] },
          events,
          describeError: errorDescriber(style),
          limits: { maxSteps: 6, maxConsecutiveFailures: 3 },
        });
        await new Promise((resolve) => setImmediate(resolve));
        const calls = runs.flatMap((run) => run.steps.flatMap((step) => step.calls));
        const outcome = classify({ call, calls, result });
        rows.push({
          id: call.id,
          kind: call.kind,
          style,
          outcome,
          right: call.expected === 'ask' ? outcome === 'asked' : outcome === 'corrected_1' || outcome === 'corrected_2',
          modelCalls: result.steps,
        });
      } finally {
        toolkit?.close?.();
      }
    }
  }
  return { name: corpus.name, rows, styles: styles.map((style) => summarise(style, rows)) };
}

function scriptFor(call: BrokenCall): Script {
  return {
    name: `broken-${call.id}`,
    onUnclearError: 'repeat',
    maxRepeats: 1,
    giveUp,
    askUser: `${askPrefix} {field}? It looks like {example}.`,
    onRefusal: `${giveUp} {reason}`,
    turns: [{ steps: [{ call: { name: call.tool, arguments: call.arguments } }, { say: done }] }],
  };
}

function classify({
  call,
  calls,
  result,
}: {
  call: BrokenCall;
  calls: readonly CallTrace[];
  result: RunResult;
}): ExperimentOutcome {
  const succeeded = calls.findIndex((candidate) => candidate.status === 'ok');
  if (succeeded === 0) return 'not_broken';
  if (succeeded > 0) {
    const ran = calls[succeeded];
    const right = call.expected !== 'ask' && ran !== undefined && includesRawValues(ran.rawArguments, call.expected);
    if (!right) return 'wrong_fix';
    return succeeded === 1 ? 'corrected_1' : 'corrected_2';
  }
  return result.stopReason === 'completed' && result.text?.startsWith(askPrefix) === true ? 'asked' : 'gave_up';
}

function includesRawValues(rawArguments: string, expected: Readonly<Record<string, unknown>>): boolean {
  try {
    return includesValues(JSON.parse(rawArguments) as unknown, expected);
  } catch {
    return false;
  }
}

const outcomeNames: readonly ExperimentOutcome[] = [
  'corrected_1',
  'corrected_2',
  'wrong_fix',
  'asked',
  'gave_up',
  'not_broken',
];

function summarise(style: ErrorStyle, rows: readonly ExperimentRow[]): StyleSummary {
  const mine = rows.filter((row) => row.style === style);
  const outcomes = Object.fromEntries(outcomeNames.map((name) => [name, 0])) as Record<ExperimentOutcome, number>;
  for (const row of mine) outcomes[row.outcome] += 1;
  return { style, calls: mine.length, outcomes, right: mine.filter((row) => row.right).length };
}

const corpusSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    calls: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          kind: { type: 'string' },
          user: { type: 'string' },
          tool: { type: 'string' },
          arguments: { type: 'object' },
          expected: { anyOf: [{ const: 'ask' }, { type: 'object' }] },
        },
        required: ['id', 'kind', 'user', 'tool', 'arguments', 'expected'],
        additionalProperties: false,
      },
    },
  },
  required: ['name', 'calls'],
  additionalProperties: false,
};

/**
 * Reads a corpus of broken calls (JSON). Throws `InputFileError` naming the
 * file and every problem in it.
 *
 * @example
 * const corpus = readBrokenCallCorpus('evals/shop/experiments/error-messages.json');
 */
export function readBrokenCallCorpus(path: string): BrokenCallCorpus {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputFileError({ file: path, problem: `not a readable JSON corpus`, cause: error });
  }
  const issues = compileToolValidator({ schema: corpusSchema, toolName: 'corpus' })(value);
  if (issues.length > 0) {
    throw new InputFileError({
      file: path,
      problem: [`not a valid corpus of broken calls:`, ...issues.map((issue) => `  ${issue.message}`)].join('\n'),
    });
  }
  return value as BrokenCallCorpus;
}
