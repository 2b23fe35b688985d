import type { GatedCall, GateRuntime } from './gated-call.js';
import { guardEgress } from './guard-egress.js';
import type { GateDecision } from './tool-gate.js';

/**
 * Asks the run's gate about one validated call (its arguments bound to the
 * principal), then holds an egress call for a person once the conversation
 * holds untrusted content (`guardEgress`). The answer is returned as the
 * gate gave it: synchronous for a gate that needs no history, a promise for
 * one that reads `context.history`, so a call through a synchronous gate
 * waits for nothing.
 *
 * @example
 * const checking = checkGate(runtime, call);
 * const verdict = checking instanceof Promise ? await checking : checking;
 */
export function checkGate(runtime: GateRuntime, call: GatedCall): GateDecision | Promise<GateDecision> {
  const verdict = runtime.gate.check({ tool: call.tool, args: call.args, context: call.context });
  if (call.tool.definition.egress !== true) return verdict;
  return verdict instanceof Promise
    ? verdict.then((decided) => guardEgress(runtime, call, decided))
    : guardEgress(runtime, call, verdict);
}
