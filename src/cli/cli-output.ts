/** What a command produced: its exit code and its lines, so tests need no process. */
export interface CommandResult {
  readonly exitCode: 0 | 1 | 2;
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
}
