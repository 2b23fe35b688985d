import { readFileSync } from 'node:fs';
import { InputFileError } from '../../errors/input-file-error.js';

/** A request of the corpus with the call that fulfils it: the first-call phase asks the model for it. */
export interface YieldIntent {
  readonly id: string;
  readonly user: string;
  /** The same request in Chinese, for the zh-CN conversation. */
  readonly user_zh: string;
  readonly tool: string;
  /** The values the right call holds (other fields may be worded freely). */
  readonly expected: Readonly<Record<string, unknown>>;
}

/** One broken call: the user's words, the call as sent, and the call it should have been. */
export interface YieldCall {
  readonly id: string;
  /** `corpus` (the shop's error-message corpus), `mutation` (an intent broken one way), `own` (a model's own first call). */
  readonly source: 'corpus' | 'mutation' | 'own';
  readonly user: string;
  readonly user_zh: string;
  /** The tool the broken call names (an unknown one for `unknown_tool`). */
  readonly tool: string;
  /** The arguments as sent: an object, or the raw text when the model wrote something else. */
  readonly arguments: unknown;
  readonly intended_tool: string;
  readonly expected: Readonly<Record<string, unknown>>;
}

export interface YieldCorpus {
  readonly name: string;
  readonly description?: string;
  readonly intents: readonly YieldIntent[];
  readonly calls: readonly YieldCall[];
}

/**
 * Reads the correction-yield corpus (`evals/yield/corpus.json`). A file that
 * is not JSON or lacks `intents` or `calls` is an `InputFileError`.
 *
 * @example
 * const corpus = readYieldCorpus('evals/yield/corpus.json');
 */
export function readYieldCorpus(path: string): YieldCorpus {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputFileError({ file: path, problem: 'not a readable JSON corpus', cause: error });
  }
  const record = value as Partial<YieldCorpus> | null;
  if (typeof record !== 'object' || record === null || !Array.isArray(record.calls) || !Array.isArray(record.intents)) {
    throw new InputFileError({ file: path, problem: 'not a correction-yield corpus: it needs "intents" and "calls"' });
  }
  return record as YieldCorpus;
}

/** The arguments of a call as the raw text a model would have sent. */
export function rawArgumentsOf(call: Pick<YieldCall, 'arguments'>): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}
