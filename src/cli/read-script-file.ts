import { readFile } from 'node:fs/promises';
import { InputFileError } from '../errors/input-file-error.js';
import type { Script } from '../models/script.js';
import { isRecord } from '../util/is-record.js';
import { jsonSyntaxProblem } from '../util/json-syntax-position.js';

/**
 * Reads a scripted model's script (JSON, `{ name, turns }`), for `serve
 * --script` and `fake-endpoint --script`, and checks it whole before the
 * server starts: an unreadable file, a JSON syntax error (with its line and
 * column) or a step that is not `{ "call": { "name", "arguments" } }` or
 * `{ "say": "…" }` is an `InputFileError` naming the file, the turn and step,
 * and the field (`"args"`: did you mean `"arguments"`?).
 *
 * @example
 * const script = await readScriptFile('time.json');
 */
export async function readScriptFile(file: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputFileError({ file, problem: 'cannot be read', cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputFileError({ file, ...jsonSyntaxProblem(text), cause: error });
  }
  const problem = scriptProblem(value);
  if (problem !== undefined) throw new InputFileError({ file, problem });
  return value as Script;
}

const callFields = ['name', 'arguments'];
const stepFields = ['call', 'say'];
const turnFields = ['when', 'steps'];
const scriptFields = ['name', 'turns', 'onUnclearError', 'maxRepeats', 'giveUp', 'askUser', 'onRefusal'];
/** What people write for a field of a script, and the field they mean. */
const meant: Readonly<Record<string, string>> = {
  args: 'arguments',
  arg: 'arguments',
  params: 'arguments',
  parameters: 'arguments',
  input: 'arguments',
  tool: 'name',
  function: 'name',
  text: 'say',
  content: 'say',
  message: 'say',
  reply: 'say',
  tool_call: 'call',
  toolCall: 'call',
  match: 'when',
  pattern: 'when',
  step: 'steps',
  turn: 'turns',
};

/**
 * The first thing wrong with a parsed script, as a sentence naming where
 * (`turn 1, step 2 (turns[0].steps[1])`) and which field; `undefined` for a
 * script the scripted model can play.
 *
 * @example
 * scriptProblem({ name: 's', turns: [{ steps: [{ call: { name: 'query_order', args: {} } }] }] });
 * // 'turn 1, step 1 (turns[0].steps[0].call): unknown field "args" (did you mean "arguments"?); a call is {"name", "arguments"}'
 */
export function scriptProblem(value: unknown): string | undefined {
  if (!isRecord(value) || !Array.isArray(value.turns)) return 'a script needs "name" and a "turns" array';
  const unknownTop = unknownField(value, scriptFields);
  if (unknownTop !== undefined) return `the script: ${unknownTop}; a script is {${quoted(scriptFields)}}`;
  for (const field of ['name', 'giveUp', 'askUser', 'onRefusal'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string') return `"${field}" must be a string`;
  }
  if (value.onUnclearError !== undefined && value.onUnclearError !== 'repeat' && value.onUnclearError !== 'give_up') {
    return '"onUnclearError" must be "repeat" or "give_up"';
  }
  if (value.maxRepeats !== undefined && !(Number.isInteger(value.maxRepeats) && Number(value.maxRepeats) >= 0)) {
    return '"maxRepeats" must be a whole number from 0';
  }
  for (const [turnIndex, turn] of value.turns.entries()) {
    const where = `turn ${turnIndex + 1} (turns[${turnIndex}])`;
    if (!isRecord(turn)) return `${where} must be an object {"when"?, "steps"}`;
    const unknownTurn = unknownField(turn, turnFields);
    if (unknownTurn !== undefined) return `${where}: ${unknownTurn}; a turn is {"when"?, "steps"}`;
    if (turn.when !== undefined) {
      if (typeof turn.when !== 'string') return `${where}: "when" must be a string (a regular expression)`;
      try {
        new RegExp(turn.when, 'i');
      } catch {
        return `${where}: "when" is not a regular expression: ${JSON.stringify(turn.when)}`;
      }
    }
    if (!Array.isArray(turn.steps)) return `${where}: "steps" must be an array`;
    for (const [stepIndex, step] of turn.steps.entries()) {
      const at = `turn ${turnIndex + 1}, step ${stepIndex + 1} (turns[${turnIndex}].steps[${stepIndex}])`;
      const kinds = isRecord(step) ? stepFields.filter((field) => field in step) : [];
      if (!isRecord(step) || kinds.length !== 1) {
        const unknown = isRecord(step) ? unknownField(step, stepFields) : undefined;
        return `${at}: ${unknown === undefined ? '' : `${unknown}; `}a step is {"call": {"name", "arguments"}} or {"say": "…"}`;
      }
      const unknownStep = unknownField(step, stepFields);
      if (unknownStep !== undefined) return `${at}: ${unknownStep}; a step has "call" or "say", not both`;
      if ('say' in step) {
        if (typeof step.say !== 'string') return `${at}: "say" must be a string`;
        continue;
      }
      const call = step.call;
      const callAt = `turn ${turnIndex + 1}, step ${stepIndex + 1} (turns[${turnIndex}].steps[${stepIndex}].call)`;
      if (!isRecord(call)) return `${callAt}: "call" must be an object {"name", "arguments"}`;
      const unknownCall = unknownField(call, callFields);
      if (unknownCall !== undefined) return `${callAt}: ${unknownCall}; a call is {"name", "arguments"}`;
      if (typeof call.name !== 'string' || call.name === '') return `${callAt}: "name" must be the tool's name`;
      if (!('arguments' in call)) return `${callAt}: "arguments" is missing; a call is {"name", "arguments"}`;
    }
  }
  return undefined;
}

/** `unknown field "args" (did you mean "arguments"?)` for the first key of `record` not in `known`. */
function unknownField(record: Record<string, unknown>, known: readonly string[]): string | undefined {
  const field = Object.keys(record).find((key) => !known.includes(key));
  if (field === undefined) return undefined;
  const guess = meant[field];
  return `unknown field ${JSON.stringify(field)}${guess !== undefined && known.includes(guess) ? ` (did you mean "${guess}"?)` : ''}`;
}

function quoted(fields: readonly string[]): string {
  return fields.map((field) => `"${field}"`).join(', ');
}
