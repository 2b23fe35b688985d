import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { JsonSchema } from '../core/json-schema.js';
import type { Locale } from '../core/locale.js';
import type { Principal } from '../core/principal.js';
import { InputFileError } from '../errors/input-file-error.js';
import type { RunLimits } from '../loop/run-agent.js';
import type { Script } from '../models/script.js';
import { compileToolValidator, type ToolValidator } from '../validation/compile-tool-validator.js';
import type { ErrorStyle } from './error-describer.js';
import type { CaseExpectations, CaseGateSpec, CaseMemory, CaseModel, EvalCase, ToolSelection } from './eval-case.js';
import { caseFileSchema, fixtureFileSchema, suiteFileSchema } from './eval-file-schemas.js';
import type { FixtureToolSpec } from './fixture-tools.js';

/** A suite, read and checked: its cases with defaults applied and scripts read. */
export interface EvalSuite {
  readonly name: string;
  readonly description: string | undefined;
  readonly directory: string;
  /** The toolkit the suite runs against, e.g. `shop`; the command supplies it. */
  readonly toolkit: string | undefined;
  readonly fixtures: readonly FixtureToolSpec[];
  readonly cases: readonly EvalCase[];
}

interface CaseSettings {
  readonly tools?: ToolSelection;
  readonly model?: 'configured' | { readonly script: Script | string };
  readonly principal?: Principal;
  readonly gate?: CaseGateSpec;
  readonly limits?: RunLimits;
  readonly locale?: Locale;
  readonly errorStyle?: ErrorStyle;
  readonly toolkitOptions?: Readonly<Record<string, unknown>>;
  readonly memory?: CaseMemory;
}

interface SuiteFile {
  readonly name: string;
  readonly description?: string;
  readonly toolkit?: string;
  readonly fixtures?: string;
  readonly cases?: string;
  readonly defaults?: CaseSettings;
}

interface CaseFile extends CaseSettings {
  readonly id: string;
  readonly category: string;
  readonly description?: string;
  readonly input: string | readonly string[];
  readonly expect: CaseExpectations;
}

/**
 * Reads a suite directory: `suite.json` (name, toolkit, fixture tools,
 * defaults), then every `*.json` in its cases directory, in file-name order.
 * Each file is checked against its JSON Schema with arbiter's own
 * validator, so a mistake reads like a tool-call error: which field, what
 * was expected. Throws `InputFileError` naming the file.
 *
 * @example
 * const suite = loadSuite({ directory: 'evals/shop' });
 * suite.cases.map((evalCase) => evalCase.id);
 */
export function loadSuite({ directory }: { directory: string }): EvalSuite {
  const suitePath = join(directory, 'suite.json');
  if (!existsSync(suitePath)) {
    throw new InputFileError({ file: suitePath, problem: `no suite here (expected a suite.json)` });
  }
  const suite = readChecked<SuiteFile>(suitePath, suiteFileSchema, 'eval_suite');
  const fixtures =
    suite.fixtures === undefined
      ? []
      : readChecked<{ tools: FixtureToolSpec[] }>(join(directory, suite.fixtures), fixtureFileSchema, 'eval_fixtures')
          .tools;
  const casesDirectory = join(directory, suite.cases ?? 'cases');
  let files: string[];
  try {
    files = readdirSync(casesDirectory)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    throw new InputFileError({
      file: casesDirectory,
      problem: `cannot list the cases`,
      cause: error,
    });
  }
  const cases = files.map((name) => toCase(join(casesDirectory, name), suite.defaults ?? {}));
  const seen = new Map<string, string>();
  for (const evalCase of cases) {
    const earlier = seen.get(evalCase.id);
    if (earlier !== undefined) {
      throw new InputFileError({
        file: evalCase.file,
        problem: `case id "${evalCase.id}" is already used by ${earlier}`,
      });
    }
    seen.set(evalCase.id, evalCase.file);
  }
  return {
    name: suite.name,
    description: suite.description,
    directory,
    toolkit: suite.toolkit,
    fixtures,
    cases,
  };
}

function toCase(file: string, defaults: CaseSettings): EvalCase {
  const raw = readChecked<CaseFile>(file, caseFileSchema, 'eval_case');
  const settings: CaseSettings = { ...defaults, ...raw };
  const model = settings.model;
  if (model === undefined) {
    throw new InputFileError({ file, problem: `no model: give "model" here or in the suite's defaults` });
  }
  return {
    id: raw.id,
    category: raw.category,
    description: raw.description,
    input: typeof raw.input === 'string' ? [raw.input] : [...raw.input],
    tools: settings.tools ?? {},
    model: resolveModel(model, dirname(file)),
    principal: settings.principal,
    gate: settings.gate,
    limits: settings.limits,
    locale: settings.locale ?? 'en',
    errorStyle: settings.errorStyle ?? 'full',
    toolkitOptions: settings.toolkitOptions ?? {},
    memory: settings.memory,
    expect: raw.expect,
    file,
  };
}

function resolveModel(model: NonNullable<CaseSettings['model']>, directory: string): CaseModel {
  if (model === 'configured') return model;
  if (typeof model.script !== 'string') return { script: model.script };
  const path = resolve(directory, model.script);
  return { script: readChecked<Script>(path, scriptSchema, 'script') };
}

const scriptSchema: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, turns: { type: 'array', items: { type: 'object' } } },
  required: ['name', 'turns'],
};

/** Compiled once: a suite has many case files and ajv compiles slowly. */
const validators = new Map<JsonSchema, ToolValidator>();

function readChecked<Value>(file: string, schema: JsonSchema, kind: string): Value {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputFileError({ file, problem: `cannot be read`, cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError({
      file,
      problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    });
  }
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = compileToolValidator({ schema, toolName: kind });
    validators.set(schema, validate);
  }
  const issues = validate(value);
  if (issues.length > 0) {
    throw new InputFileError({
      file,
      problem: [`not a valid ${kind.replace('eval_', '')} file:`, ...issues.map((issue) => `  ${issue.message}`)].join(
        '\n',
      ),
    });
  }
  return value as Value;
}
