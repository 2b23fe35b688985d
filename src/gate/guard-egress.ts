import type { GatedCall, GateRuntime } from './gated-call.js';
import type { GateDecision } from './tool-gate.js';

/** The rule an egress call is held by once the conversation holds untrusted content. */
export const egressAfterUntrustedRule = 'egress_after_untrusted_content';

/**
 * The guard against the "lethal trifecta": once the run's conversation holds
 * content from an untrusted source (`runtime.untrustedSources`: results and
 * errors of tools declaring `untrustedOutput`, tool errors marked `untrusted`,
 * recalled facts that were not the user's, kept with the session), a call of a tool
 * that sends data outside (`egress`) waits for a person, whatever its tier
 * or its own rule says, and the approver reads why ("this conversation
 * contains content from …"). A denial stays a denial; a call already held
 * for a person is held under this rule with both reasons. Any other call,
 * or any call in a conversation without untrusted content, keeps the gate's
 * decision.
 *
 * @example
 * const verdict = guardEgress(runtime, call, await runtime.gate.check(request));
 */
export function guardEgress(runtime: GateRuntime, call: GatedCall, verdict: GateDecision): GateDecision {
  const sources = runtime.untrustedSources;
  if (call.tool.definition.egress !== true || verdict.decision === 'deny' || sources === undefined) return verdict;
  if (sources.size === 0) return verdict;
  const reason = runtime.gateTexts.egressAfterUntrusted({ tool: call.toolName, sources: [...sources] });
  return {
    decision: 'require_approval',
    rule: egressAfterUntrustedRule,
    reason: verdict.decision === 'require_approval' ? `${reason} ${verdict.reason}` : reason,
  };
}
