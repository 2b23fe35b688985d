import { isCallHistorySource } from '../core/call-history.js';
import { bindPrincipalParameters } from '../gate/bind-principal-parameters.js';
import { createCallHistory } from '../gate/create-call-history.js';
import type { GatedCall, ToolCallHead } from '../gate/gated-call.js';
import type { RegisteredTool } from '../tools/tool-registry.js';
import { redact } from '../util/redact.js';
import { argumentsHash } from '../util/sha256.js';
import type { RunRuntime } from './run-runtime.js';

/**
 * Makes a validated call ready for the gate: the principal's parameters
 * bound, the arguments hashed (once, for approvals, idempotency and the
 * audit) and redacted (once, for people to read), and the context the
 * tool runs in, with the call history its rules read. Call
 * `releaseHistory` once the call is decided and audited.
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
  return {
    step: head.step,
    toolCallId: head.toolCallId,
    toolName: head.toolName,
    startedAt: head.startedAt,
    tool,
    args,
    argumentsHash: argumentsHash(args),
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
    },
    releaseHistory: scopedHistory.release,
    decision: 'allowed',
    rule: undefined,
    approver: undefined,
  };
}
