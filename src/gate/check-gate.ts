import type { GatedCall, GateRuntime } from './gated-call.js';
import type { GateDecision } from './tool-gate.js';

/**
 * Asks the run's gate about one validated call (its arguments bound to the
 * principal). The answer is returned as the gate gave it: synchronous for a
 * gate that needs no history, a promise for one that reads
 * `context.history`, so a call through a synchronous gate waits for nothing.
 *
 * @example
 * const checking = checkGate(runtime, call);
 * const verdict = checking instanceof Promise ? await checking : checking;
 */
export function checkGate(runtime: GateRuntime, call: GatedCall): GateDecision | Promise<GateDecision> {
  return runtime.gate.check({ tool: call.tool, args: call.args, context: call.context });
}
