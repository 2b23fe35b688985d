import type { ChatMessage, ToolCall } from '../core/chat-message.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { canonicalJson } from '../util/canonical-json.js';
import { parseToolCall } from './parse-tool-call.js';
import type { RunRuntime } from './run-runtime.js';

/**
 * Brings a resumed run's brakes back to where they were: the calls this run
 * already made (after its user message) count again, from the outcomes the
 * journal recorded, so a restart cannot reset "the same call a third time"
 * or "the same tool failing twice in a row". A call counts under the same
 * arguments the live count used: validated, strict-mode nulls read as the
 * run's model sends them, bound parameters dropped.
 *
 * @example
 * if (options.resume !== undefined) await replayBrakes(runtime, tools, progress.conversation);
 */
export async function replayBrakes(
  runtime: RunRuntime,
  tools: ToolSet,
  conversation: readonly ChatMessage[],
): Promise<void> {
  const { brakes, journal, runId } = runtime;
  let start = conversation.length;
  while (start > 0 && conversation[start - 1]?.role !== 'user') start -= 1;
  for (const message of conversation.slice(start)) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      const recorded = await journal.findToolResult(runId, call.id);
      if (recorded === undefined) continue;
      const { outcome } = recorded;
      if (!outcome.ok && outcome.error.code === 'not_run') continue;
      // Calls refused before validation passed never counted as "the same call".
      if (outcome.ok || outcome.error.issues === undefined) {
        brakes.noteCall(call.function.name, canonicalJson(countedArguments(runtime, tools, call)));
      }
      brakes.noteOutcome(call.function.name, outcome.ok);
    }
  }
}

/** The arguments as the live count saw them; a call no longer valid (its tool changed) counts as sent. */
function countedArguments(runtime: RunRuntime, tools: ToolSet, call: ToolCall): unknown {
  const checked = parseToolCall(runtime, tools, call);
  if (checked.ok) return checked.args;
  try {
    return JSON.parse(call.function.arguments) as unknown;
  } catch {
    return call.function.arguments;
  }
}
