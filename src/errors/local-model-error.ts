import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.local_model';
const symbol = Symbol.for(marker);

/** Why a local model file cannot serve as a model. */
export type LocalModelProblem = 'missing_file' | 'unreadable_file' | 'unsupported_file' | 'runtime_missing';

/**
 * A local model (`--model local:FILE`) cannot be loaded: the file does not
 * exist, cannot be read, is not a GGUF model the runtime can load, or the
 * optional runtime package (`node-llama-cpp`) is not installed. Not a model
 * call failure: no retry can help, the file or the installation must change.
 *
 * @example
 * throw new LocalModelError({ file: 'models/qwen.gguf', problem: 'missing_file', message: 'models/qwen.gguf: no such file' });
 */
export class LocalModelError extends ArbiterError {
  readonly code = 'local_model_unavailable' as const;
  readonly [symbol] = true;
  /** The model file as given. */
  readonly file: string;
  readonly problem: LocalModelProblem;

  constructor({
    file,
    problem,
    message,
    cause,
  }: {
    file: string;
    problem: LocalModelProblem;
    message: string;
    cause?: unknown;
  }) {
    super(message, { cause });
    this.file = file;
    this.problem = problem;
  }

  static override isInstance(error: unknown): error is LocalModelError {
    return ArbiterError.hasMarker(error, marker);
  }
}
