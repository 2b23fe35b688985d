import type { ToolErrorPayload } from '../core/tool-outcome.js';
import { auditToolCall } from './audit-tool-call.js';
import type { GatedCall, GateRuntime } from './gated-call.js';
import type { GateDecision } from './tool-gate.js';

/**
 * Refuses a call the gate denied: audits it (`denied`, `not_run`, the rule)
 * and returns the error the model reads, which tells it not to try again.
 *
 * @example
 * if (verdict.decision === 'deny') return reportFailure(runtime, call, 'gate', await refuseDeniedCall(runtime, call, verdict));
 */
export async function refuseDeniedCall(
  runtime: GateRuntime,
  call: GatedCall,
  verdict: Extract<GateDecision, { decision: 'deny' }>,
): Promise<ToolErrorPayload> {
  call.decision = 'denied';
  call.rule = verdict.rule;
  await auditToolCall(runtime, call, 'not_run');
  const message = runtime.gateTexts.refused({ tool: call.toolName, code: verdict.code, message: verdict.message });
  return { code: verdict.code, retryable: false, message };
}
