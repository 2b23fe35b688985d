import { ArbiterError } from './arbiter-error.js';

const marker = 'arbiter.error.input_file';
const symbol = Symbol.for(marker);

/**
 * A file given on the command line is unreadable or malformed. The message
 * names the file and, where it applies, the line (and column), then the
 * problem: `calls.jsonl:3: not valid JSON`, `auth.json:4:3: not valid JSON`.
 *
 * @example
 * throw new InputFileError({ file: 'calls.jsonl', line: 3, problem: 'not valid JSON' });
 * // message: "calls.jsonl:3: not valid JSON"
 */
export class InputFileError extends ArbiterError {
  readonly code = 'input_file_invalid' as const;
  readonly [symbol] = true;
  readonly file: string;
  readonly line: number | undefined;
  /** 1-based, with `line`, where the place within the line is known (a JSON syntax error). */
  readonly column: number | undefined;
  /** What is wrong with the file, without its name. */
  readonly problem: string;

  constructor({
    file,
    line,
    column,
    problem,
    cause,
  }: {
    file: string;
    line?: number | undefined;
    column?: number | undefined;
    problem: string;
    cause?: unknown;
  }) {
    const place = line === undefined ? '' : column === undefined ? `:${line}` : `:${line}:${column}`;
    super(`${file}${place}: ${problem}`, { cause });
    this.file = file;
    this.line = line;
    this.column = line === undefined ? undefined : column;
    this.problem = problem;
  }

  static override isInstance(error: unknown): error is InputFileError {
    return ArbiterError.hasMarker(error, marker);
  }
}
