import { isCallHistorySource } from '../core/call-history.js';
import { bindPrincipalParameters } from '../gate/bind-principal-parameters.js';
import { createCallHistory } from '../gate/create-call-history.js';
import type { GatedCall, ToolCallHead } from '../gate/gated-call.js';
import type { RegisteredTool } from '../tools/tool-registry.js';
import { redact } from '../util/redact.js';
import { argumentsHash, sha256Hex } from '../util/sha256.js';
import type { RunRuntime } from './run-runtime.js';

/**
 * Makes a validated call ready for the gate: the principal's parameters
 * bound, the arguments hashed (once, for approvals, idempotency and the
 * audit) and redacted (once, for people to read), and the context the
 * tool runs in, with the call history its rules read. Call
 * `releaseHistory` once the call is decided and audited. Pass
 * `canonicalArguments` (`canonicalJson(validated)`) when already computed:
 * a tool that binds no parameter hashes it instead of serialising again.
 *
 * @example
 * const gated = bindToolCall(runtime, head, checked.tool, checked.args);
 * try { ... } finally { gated.releaseHistory(); }
 */
export function bindToolCall(
  runtime: RunRuntime,
  head: ToolCallHead,
  tool: RegisteredTool,
  validated: Record<string, unknown>,
  canonicalArguments?: string,
): GatedCall {
  const { runId, sessionId, principal, audit } = runtime;
  const scopedHistory = createCallHistory({
    source: isCallHistorySource(audit) ? audit : undefined,
    runId,
    sessionId,
    principal,
    tool: head.toolName,
  });
  const args = bindPrincipalParameters({ args: validated, tool, principal });
  // Without bound parameters `args` is a copy of `validated` with the same keys and values: the same canonical JSON.
  const hash =
    canonicalArguments !== undefined && tool.definition.boundParameters === undefined
      ? sha256Hex(canonicalArguments)
      : argumentsHash(args);
  return {
    step: head.step,
    toolCallId: head.toolCallId,
    toolName: head.toolName,
    startedAt: head.startedAt,
    tool,
    args,
    argumentsHash: hash,
    shownArguments: redact(args, tool.definition.sensitive ?? []) as Record<string, unknown>,
    context: {
      runId,
      sessionId,
      step: head.step,
      toolCallId: head.toolCallId,
      principal,
      signal: runtime.signal,
      locale: runtime.locale,
      history: scopedHistory.history,
      reportProgress: ({ progress, total, message }) =>
        runtime.emitter.emit({
          type: 'tool:progress',
          step: head.step,
          toolCallId: head.toolCallId,
          tool: head.toolName,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
    },
    releaseHistory: scopedHistory.release,
    decision: 'allowed',
    rule: undefined,
    approver: undefined,
  };
}
