import { ArbiterError } from './arbiter-error.js';

const marker = Symbol.for('arbiter.error.input_file');

/**
 * A file given on the command line is unreadable or malformed. The message
 * names the file and, where it applies, the line.
 *
 * @example
 * throw new InputFileError({ file: 'calls.jsonl', line: 3, message: 'calls.jsonl:3: not valid JSON' });
 */
export class InputFileError extends ArbiterError {
  readonly code = 'input_file_invalid' as const;
  readonly [marker] = true;
  readonly file: string;
  readonly line: number | undefined;

  constructor({ file, line, message, cause }: { file: string; line?: number; message: string; cause?: unknown }) {
    super(message, { cause });
    this.file = file;
    this.line = line;
  }

  static override isInstance(value: unknown): value is InputFileError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
