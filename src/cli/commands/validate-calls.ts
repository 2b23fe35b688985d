import type { Locale } from '../../core/locale.js';
import type { ValidationIssueSummary } from '../../core/tool-outcome.js';
import { InputFileError } from '../../errors/input-file-error.js';
import { ToolDefinitionError } from '../../errors/tool-definition-error.js';
import { fromOpenAiTool } from '../../tools/from-openai-tool.js';
import { ToolRegistry } from '../../tools/tool-registry.js';
import { validateToolCall } from '../../validation/validate-tool-call.js';
import type { CommandResult } from '../cli-output.js';
import { readCallsFile, readToolsFile } from '../read-input-file.js';

/** One line of `arbiter validate` output. */
export interface CallVerdict {
  readonly id: string;
  readonly ok: boolean;
  readonly issues: readonly ValidationIssueSummary[];
  /** The exact tool message the model would get back; null when the call is valid. */
  readonly message: string | null;
}

/**
 * `arbiter validate --tools FILE --calls FILE`: checks each recorded call
 * exactly as the runtime would before running a tool, and prints one JSON
 * line per call, `{"id", "ok", "issues": [{"path", "code", "message"}],
 * "message"}`, where `message` is the text the model would receive (null for
 * a valid call). Exit 0 when every call is valid, 1 when any is not, 2 when a
 * file is unreadable or malformed or a tool would be refused at registration.
 *
 * @example
 * const result = validateCalls({ toolsFile: 'tools.json', callsFile: 'calls.jsonl', locale: 'zh-CN' });
 * for (const line of result.stdout) console.log(line);
 */
export function validateCalls({
  toolsFile,
  callsFile,
  locale = 'en',
}: {
  toolsFile: string;
  callsFile: string;
  locale?: Locale;
}): CommandResult {
  const registry = new ToolRegistry();
  let calls: ReturnType<typeof readCallsFile>;
  try {
    for (const tool of readToolsFile({ path: toolsFile })) registry.register(fromOpenAiTool(tool));
    calls = readCallsFile({ path: callsFile });
  } catch (error) {
    if (InputFileError.isInstance(error)) return { exitCode: 2, stdout: [], stderr: [error.message] };
    if (ToolDefinitionError.isInstance(error))
      return { exitCode: 2, stdout: [], stderr: [`${toolsFile}: ${error.message}`] };
    throw error;
  }

  const verdicts = calls.map((call): CallVerdict => {
    const result = validateToolCall({ registry, name: call.name, rawArguments: call.rawArguments, locale });
    if (result.ok) return { id: call.id, ok: true, issues: [], message: null };
    return {
      id: call.id,
      ok: false,
      issues: result.issues.map(({ path, code, message }) => ({ path, code, message })),
      message: result.message,
    };
  });
  return {
    exitCode: verdicts.every((verdict) => verdict.ok) ? 0 : 1,
    stdout: verdicts.map((verdict) => JSON.stringify(verdict)),
    stderr: [],
  };
}
