import { sha256Hex } from '../util/sha256.js';
import type { GatedCall } from './gated-call.js';

/**
 * The hash an approval of `call` is bound to: the arguments' hash, and for
 * a tool whose definition has a fingerprint (a third party's tool, pinned
 * when it was mounted) the fingerprint too. A pending or granted approval
 * asked under one definition therefore never matches a call under another:
 * the broker answers `arguments_changed`, which the gate reports as
 * `tool_changed` for such a tool.
 *
 * @example
 * approvalBinding(call); // call.argumentsHash, or sha256(`${call.argumentsHash}:${fingerprint}`)
 */
export function approvalBinding(call: GatedCall): string {
  const fingerprint = call.tool.definition.fingerprint;
  return fingerprint === undefined ? call.argumentsHash : sha256Hex(`${call.argumentsHash}:${fingerprint}`);
}
